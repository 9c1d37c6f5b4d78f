"""Fixtures for driving toolweave servers with clients nobody here wrote.

- `node_tools`: Node 22 and the pinned npm tools, installed once into `.cache/` by
  `tests/node_tools.sh` (the same script `tests/conformance/run.sh` uses). Tests that need them
  are skipped only when the npm registry is unreachable and the cache is cold.
- `interop_url`: `tests/interop/servers.py` served over HTTP on 127.0.0.1 for the module.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT, free_port, subprocess_env, wait_for_port
from tests.node import node_tool


@pytest.fixture(scope="session")
def node_tools() -> dict[str, str]:
    """`NODE_BIN` and `INSPECTOR` paths, installing them on first use."""
    return node_tool("inspector", "MCP Inspector")


@pytest.fixture(scope="module")
def interop_url() -> Iterator[str]:
    """`tests.interop.servers` over streamable HTTP, for the whole module."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.interop.servers", "http", str(port)],
        cwd=ROOT,
        env=subprocess_env(),
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
