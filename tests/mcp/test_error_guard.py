"""Anything that escapes a handler reaches the client as `-32603 Internal error (incident <id>)` in
both eras, never as its own text; the traceback is logged once under that id."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterator
from typing import Any

import mcp.types as mt
import pytest
from mcp import Client, MCPError, StdioServerParameters
from pydantic import BaseModel

from tests.conftest import ROOT, subprocess_env
from tests.serving import PORT, spawned
from toolweave import Context, Server, Tool, ToolResult
from toolweave.middleware import Middleware

GUARDED = str(ROOT / "tests" / "servers" / "guarded.py")

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


class Page(BaseModel):
    size: int


class ValidatingListing(Middleware):
    async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
        Page.model_validate({"size": SECRET})  # the server's own pydantic failure, quoting its input
        return tools


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_validation_error_of_the_servers_own_code_is_masked(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    server = server_with_failures()
    server.add_middleware(ValidatingListing())
    async with Client(server.as_mcp(), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.list_tools()
    assert_masked(raised.value, caplog)  # not "-32602 Invalid request parameters", unlogged


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_request_the_sdk_refuses_stays_invalid_params(mode: str) -> None:
    params = mt.GetPromptRequestParams.model_construct(name="greet", arguments=5)  # arguments must be strings
    request = mt.GetPromptRequest.model_construct(method="prompts/get", params=params)
    async with Client(server_with_failures().as_mcp(), mode=mode) as client:
        with pytest.warns(UserWarning), pytest.raises(MCPError) as raised:  # the client's own serializer warns
            await client.session.send_request(request, mt.GetPromptResult)
    assert raised.value.error.code == mt.INVALID_PARAMS


@pytest.fixture(scope="module")
def guarded_http_url() -> Iterator[str]:
    with spawned(sys.executable, GUARDED, "http", PORT) as server:
        yield f"{server.url}/mcp"


async def _failures_are_masked_on_the_wire(target: Any, mode: str) -> None:
    from mcp.types import PromptReference

    async with Client(target, mode=mode) as client:
        with pytest.raises(MCPError) as listing:
            await client.list_tools()
        with pytest.raises(MCPError) as completing:
            await client.complete(PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "a"})
        assert [prompt.name for prompt in (await client.list_prompts()).prompts] == ["greet"]  # still serving
    for raised in (listing, completing):
        assert raised.value.error.code == -32603
        assert re.fullmatch(r"Internal error \(incident [0-9a-f]{8}\)", raised.value.error.message)
        assert "hunter2" not in str(raised.value.error.model_dump())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_failures_are_masked_over_stdio(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=[GUARDED], env=subprocess_env())
    await _failures_are_masked_on_the_wire(params, mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_failures_are_masked_over_http(guarded_http_url: str, mode: str) -> None:
    await _failures_are_masked_on_the_wire(guarded_http_url, mode)
