"""Anything that escapes a handler reaches the client as `-32603 Internal error (incident <id>)` in
both eras, never as its own text; the traceback is logged once under that id."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from mcp import Client, MCPError

from toolweave import Context, Server, Tool, ToolResult
from toolweave.middleware import Middleware

SECRET = "https://idp.test/token?client_secret=hunter2-hunter2"


class BrokenListing(Middleware):
    async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
        raise RuntimeError(f"could not reach {SECRET}")


def server_with_failures() -> Server:
    server = Server("guarded")

    @server.tool
    def unconvertible() -> Any:
        """Return something no MCP content can carry."""
        return ToolResult(content=[object()])  # type: ignore[list-item]

    @server.prompt
    def greet(name: str) -> str:
        """Greet."""
        return f"hi {name}"

    @server.completion
    def complete(request: Any) -> list[str]:
        raise KeyError(SECRET)

    return server


def assert_masked(error: MCPError, caplog: pytest.LogCaptureFixture) -> None:
    assert error.error.code == -32603
    match = re.fullmatch(r"Internal error \(incident ([0-9a-f]{8})\)", error.error.message)
    assert match, error.error.message
    assert "hunter2" not in str(error.error.model_dump())
    records = [r for r in caplog.records if r.name == "toolweave.errors" and match.group(1) in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is not None


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_failing_list_middleware_is_masked(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    server = server_with_failures()
    server.add_middleware(BrokenListing())
    async with Client(server.as_mcp(), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.list_tools()
        assert (await client.list_prompts()).prompts[0].name == "greet"  # still serving
    assert_masked(raised.value, caplog)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_failing_completion_function_is_masked(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    from mcp.types import PromptReference

    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    async with Client(server_with_failures().as_mcp(), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.complete(PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "a"})
    assert_masked(raised.value, caplog)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_result_that_cannot_be_converted_is_masked(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    async with Client(server_with_failures().as_mcp(), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("unconvertible", {})
    assert_masked(raised.value, caplog)
