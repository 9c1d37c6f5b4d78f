"""The fastmcp 4 client against a toolweave server over stdio and HTTP, in both protocol eras."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from mcp import MCPError

from tests.conftest import ROOT, subprocess_env
from tests.interop.servers import TOOL_NAMES

TRANSPORTS = ["stdio", "http"]
MODES = ["auto", "legacy"]


@pytest.fixture(params=TRANSPORTS)
def target(request: pytest.FixtureRequest) -> Any:
    """What to hand `fastmcp.Client`: a stdio transport spawning the interop server, or its URL."""
    if request.param == "http":
        return request.getfixturevalue("interop_url")
    return StdioTransport(
        command=sys.executable,
        args=["-m", "tests.interop.servers", "stdio"],
        env=subprocess_env(),
        cwd=str(ROOT),
        keep_alive=False,
    )


@pytest.mark.parametrize("mode", MODES)
async def test_list_tools_gathers_every_page(target: Any, mode: str) -> None:
    async with Client(target, mode=mode) as client:
        tools = await client.list_tools()
    assert [tool.name for tool in tools] == TOOL_NAMES
    assert tools[0].input_schema["required"] == ["a", "b"]


@pytest.mark.parametrize("mode", MODES)
async def test_call_tool_returns_data_parsed_from_the_output_schema(target: Any, mode: str) -> None:
    async with Client(target, mode=mode) as client:
        result = await client.call_tool("greet", {"name": "Ada", "style": "loud"})
        added = await client.call_tool("add", {"a": 2, "b": 40})
    assert result.content[0].text == "HELLO, ADA!" and result.is_error is False
    assert added.structured_content == {"result": 42}
    assert added.data == 42  # the wrapped scalar is unwrapped: the schema carries fastmcp's marker


@pytest.mark.parametrize("mode", MODES)
async def test_progress_reaches_the_progress_handler_in_order(target: Any, mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(target, mode=mode) as client:
        result = await client.call_tool("count", {"steps": 3}, progress_handler=on_progress)
    assert result.content[0].text == "counted to 3"
    assert seen == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_error_raises_tool_error_or_returns_is_error(target: Any, mode: str) -> None:
    async with Client(target, mode=mode) as client:
        with pytest.raises(ToolError, match="cannot divide by zero"):
            await client.call_tool("divide", {"a": 1, "b": 0})
        result = await client.call_tool("divide", {"a": 1, "b": 0}, raise_on_error=False)
    assert result.is_error is True and result.content[0].text == "cannot divide by zero"


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_arguments_are_an_error_result_naming_the_argument(target: Any, mode: str) -> None:
    async with Client(target, mode=mode) as client:
        result = await client.call_tool("add", {"a": "two", "b": 1}, raise_on_error=False)
    assert result.is_error is True and "a" in result.content[0].text


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_tool_is_a_protocol_error(target: Any, mode: str) -> None:
    async with Client(target, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
    assert caught.value.error.code == -32602 and "no_such_tool" in caught.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_elicitation_reaches_the_elicitation_handler(target: Any, mode: str) -> None:
    asked: list[str] = []

    async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
        asked.append(message)
        return {"name": "Ada"}

    async with Client(target, mode=mode, elicitation_handler=on_elicit) as client:
        result = await client.call_tool("introduce", {})
    assert asked == ["What is your name?"]
    assert result.content[0].text == "Please welcome Ada!"
