"""Results a client's SDK can always accept: structured content is an object that matches the
advertised output schema, or the call is a masked internal error; JSON text is valid JSON."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from mcp import Client

from toolweave import Server, TextContent, ToolResult


def server_with_odd_results() -> Server:
    server = Server("odd")

    @server.tool
    def not_an_object() -> ToolResult:
        """Structured content that is a list."""
        return ToolResult([TextContent("[1, 2]")], structured_content=[1, 2])

    @server.tool
    def blocks() -> list:  # type: ignore[type-arg]
        """Content blocks under a bare `list` annotation."""
        return [TextContent("one"), TextContent("two")]

    @server.tool
    def off_annotation() -> dict[str, int]:
        """A return value that breaks its own annotation."""
        return {"a": "many"}  # type: ignore[dict-item]

    @server.tool
    def mean() -> dict[str, float]:
        """A NaN in the result."""
        return {"mean": math.nan, "max": math.inf}

    @server.tool
    def counts() -> dict[str, float]:
        """A value the annotation converts (ints for floats)."""
        return {"n": 3}

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_results_that_would_break_the_client_are_masked(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    async with Client(server_with_odd_results().as_mcp(), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        not_object = await client.call_tool("not_an_object", {})
        off = await client.call_tool("off_annotation", {})
    assert not_object.is_error and "(incident " in not_object.content[0].text
    assert off.is_error and "(incident " in off.content[0].text
    assert listed["off_annotation"].output_schema is not None
    assert "structured content must be a JSON object, not list" in caplog.text
    assert "does not match the return annotation (a: Input should be a valid integer" in caplog.text
    assert "many" not in caplog.text  # the value itself is never logged


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unconstrained_list_advertises_no_schema_it_cannot_honour(mode: str) -> None:
    async with Client(server_with_odd_results().as_mcp(), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("blocks", {})
    assert listed["blocks"].output_schema is None
    assert not result.is_error and [block.text for block in result.content] == ["one", "two"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_nan_under_a_number_schema_is_refused_and_converted_values_go_out(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Client(server_with_odd_results().as_mcp(), mode=mode) as client:
        result = await client.call_tool("mean", {})
        converted = await client.call_tool("counts", {})
    assert result.is_error and "(incident " in result.content[0].text  # null would break "type: number"
    assert "mean: Input should be a finite number" in caplog.text
    assert converted.structured_content == {"n": 3.0}


def test_json_text_turns_nan_and_infinity_into_null() -> None:
    import anyio

    from toolweave import Tool

    def stats() -> Any:  # no output schema: text only
        return {"mean": math.nan, "max": -math.inf}

    server = Server("s")
    server.add_tool(Tool.from_function(stats))
    result: Any = anyio.run(server.call_tool, "stats", {})
    assert json.loads(result.text) == {"mean": None, "max": None}
