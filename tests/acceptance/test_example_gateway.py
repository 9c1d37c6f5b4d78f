"""`examples/gateway.py` runs: in-process demo, and served over stdio to an mcp client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import ROOT, subprocess_env

GATEWAY = ROOT / "examples" / "gateway.py"


def notes_processes() -> list[int]:
    """Pids of running notes upstreams started from this checkout."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if str(ROOT / "examples" / "notes_server.py").encode() in cmdline:
                found.append(int(proc.name))
    return found


def test_gateway_demo_prints_local_and_upstream_results() -> None:
    command = [sys.executable, str(GATEWAY), "--demo"]
    done = subprocess.run(command, env=subprocess_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "tools: math_add, notes_write, notes_read",
        "math_add: 5.0",
        "notes_write: saved 'todo'",
        "notes_read: ship",
        "notes_read missing: no note called 'nope'",
    ]
    assert "[notes] connected to" in done.stderr
    assert "calling notes_read" in done.stderr


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_gateway_served_over_stdio_reaches_its_upstream(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(GATEWAY)], env=subprocess_env())
    async with Client(params, mode=mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        await client.call_tool("notes_write", {"title": "a", "text": "b"})
        result = await client.call_tool("notes_read", {"title": "a"})
        assert notes_processes()
    assert names == ["math_add", "notes_write", "notes_read"]
    assert result.content[0].text == "b"
    with anyio.fail_after(5):
        while notes_processes():  # noqa: ASYNC110 - other processes' state
            await anyio.sleep(0.05)
