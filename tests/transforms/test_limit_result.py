"""`LimitResult`: results cut to the limits, visibly, still valid against the output schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from toolweave import Server, Tool, ToolResult
from toolweave.core.content import ImageContent, TextContent
from toolweave.testing import connect
from toolweave.transforms.limit_result import META_KEY, LimitResult


class Row(BaseModel):
    id: int
    text: str


class Page(BaseModel):
    title: str
    rows: list[Row]


def big_page(rows: int = 100_000) -> Page:
    """About 10 MB of JSON."""
    return Page(title="report", rows=[Row(id=i, text="x" * 80) for i in range(rows)])


async def test_a_10_mb_result_is_cut_to_the_limit_and_stays_valid() -> None:
    server = Server("limits")

    @server.tool
    def report() -> Page:
        return big_page()

    server.add_transform(LimitResult(max_bytes=64_000))
    async with connect(server) as client:
        tool = (await client.list_tools()).tools[0]
        result = await client.call_tool("report", {})
    assert not result.is_error
    data = result.structured_content
    Draft202012Validator(tool.output_schema).validate(data)
    assert len(json.dumps(data, separators=(",", ":")).encode()) <= 64_000
    assert json.loads(result.content[0].text) == data
    assert 0 < len(data["rows"]) < 100_000
    truncated = result.meta[META_KEY]
    assert truncated["bytes"] > 10_000_000
    assert truncated["limit"] == 64_000
    assert truncated["items"] == 100_000 - len(data["rows"])


async def test_text_is_cut_with_a_visible_marker_within_the_limit() -> None:
    tool = Tool.from_function(lambda: "é" * 1000, name="long").with_transforms(LimitResult(max_bytes=100))
    result = await tool.run({}, None)  # type: ignore[arg-type]
    text = result.text
    assert len(text.encode()) <= 100
    assert text.endswith("… [truncated: 2000 → 100 bytes]")
    assert text.startswith("é")
    assert result.meta == {META_KEY: {"bytes": 2000, "limit": 100, "items": 0}}


async def test_results_within_the_limits_pass_through_unchanged() -> None:
    inner = ToolResult([TextContent("short")])

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return inner

    tool = Tool(name="t", input_schema={"type": "object"}, run=run).with_transforms(LimitResult(max_bytes=100))
    assert await tool.run({}, None) is inner  # type: ignore[arg-type]


async def test_max_items_cuts_arrays_and_content_blocks() -> None:
    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult([TextContent(str(i)) for i in range(5)] + [ImageContent("aGk=", "image/png")])

    tool = Tool(name="t", input_schema={"type": "object"}, run=run).with_transforms(LimitResult(max_items=2))
    result = await tool.run({}, None)  # type: ignore[arg-type]
    assert [block.text for block in result.content] == ["0", "1"]  # type: ignore[union-attr]
    assert result.meta[META_KEY]["items"] == 4


async def test_a_cut_that_breaks_the_schema_is_an_error_not_an_invalid_result() -> None:
    schema = {"type": "object", "properties": {"ids": {"type": "array", "minItems": 5}}, "required": ["ids"]}

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult([TextContent("ids")], {"ids": list(range(10))})

    tool = Tool(name="ids", input_schema={"type": "object"}, output_schema=schema, run=run)
    result = await tool.with_transforms(LimitResult(max_items=3)).run({}, None)  # type: ignore[arg-type]
    assert result.is_error
    assert "cannot be cut within its output schema (ids: minItems)" in result.text


async def test_structured_drop_removes_the_output_schema_and_keeps_text() -> None:
    server = Server("limits")

    @server.tool
    def report() -> Page:
        return big_page(1000)

    server.add_transform(LimitResult(max_bytes=1000, structured="drop"))
    async with connect(server) as client:
        tool = (await client.list_tools()).tools[0]
        result = await client.call_tool("report", {})
    assert tool.output_schema is None
    assert result.structured_content is None
    assert len(result.content[0].text.encode()) <= 1000
    assert "[truncated:" in result.content[0].text


@pytest.mark.parametrize(
    ("options", "message"),
    [({}, "needs max_bytes, max_items or both"), ({"max_bytes": 0}, "max_bytes must be a positive integer")],
)
def test_bad_limits_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LimitResult(**options)
