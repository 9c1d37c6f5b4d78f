"""A tool, prompt or resource raising a `BaseException` (SystemExit, KeyboardInterrupt, a group, its
own CancelledError, GeneratorExit) fails that call, masked, and the server keeps serving — over stdio and HTTP."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client, MCPError, StdioServerParameters

from tests.conftest import ROOT, subprocess_env
from tests.servers.fatal import FATAL_TOOLS
from tests.serving import PORT, spawned

SCRIPT = str(ROOT / "tests" / "servers" / "fatal.py")
ARGUMENTS = {"parse_flags": {"flags": "--count many"}}


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with spawned(sys.executable, SCRIPT, "http", PORT) as server:
        yield f"{server.url}/mcp"
    assert server.process.returncode is not None


async def _every_fatal_call_is_masked(target: Any, mode: str) -> None:
    async with Client(target, mode=mode) as client:
        for name in FATAL_TOOLS:
            result = await client.call_tool(name, ARGUMENTS.get(name, {}))
            text = result.content[0].text
            assert result.is_error, name
            assert text.startswith(f"Error calling tool '{name}' (incident "), text
            assert "SystemExit" not in text and "Traceback" not in text
        with pytest.raises(MCPError, match=r"Error rendering prompt 'exiting_prompt' \(incident"):
            await client.get_prompt("exiting_prompt")
        with pytest.raises(MCPError, match=r"Error reading resource 'fatal://exit' \(incident"):
            await client.read_resource("fatal://exit")
        assert (await client.call_tool("ping", {})).content[0].text == "pong"  # still serving


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_base_exceptions_do_not_end_a_stdio_server(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=[SCRIPT], env=subprocess_env())
    await _every_fatal_call_is_masked(params, mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_base_exceptions_do_not_end_an_http_server(http_url: str, mode: str) -> None:
    await _every_fatal_call_is_masked(http_url, mode)
    await _every_fatal_call_is_masked(http_url, mode)  # and again: the process is still up


async def test_a_sync_tool_raising_generator_exit_fails_its_call_in_process_too() -> None:
    from tests.servers.fatal import server

    result = await server.call_tool("close_generator", {})
    assert result.is_error and result.text.startswith("Error calling tool 'close_generator' (incident ")
    assert (await server.call_tool("ping", {})).text == "pong"
