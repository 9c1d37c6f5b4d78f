"""Node 22 and the npm tools the interop and conformance tests drive (`tests/node_tools.sh`)."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import ROOT

REGISTRY_UNREACHABLE = 3
"""`node_tools.sh`'s exit status when a tool is not cached and the npm registry cannot be reached."""


def node_tool(name: str, label: str) -> dict[str, str]:
    """`NODE_BIN` and the paths `node_tools.sh NAME` prints, installing them on first use; skips
    (saying why) when they are not cached and the registry is unreachable, fails on any other error."""
    done = subprocess.run(
        ["bash", str(ROOT / "tests" / "node_tools.sh"), name],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode == REGISTRY_UNREACHABLE:
        pytest.skip(f"Node 22 / {label} not cached and the npm registry is unreachable")
    if done.returncode != 0:
        pytest.fail(f"tests/node_tools.sh failed ({done.returncode}):\n{done.stderr}")
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
