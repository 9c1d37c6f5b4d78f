"""The directly built wire dicts of a tool and of a call's result are what the SDK's models dump to."""

from __future__ import annotations

from typing import Any

import mcp.types as mt
import pytest

from toolweave import Tool, ToolAnnotations, ToolResult
from toolweave.core.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from toolweave.mcp.convert import TAGS_META_KEY, _wire_output_schema, to_mcp_content, wire_result, wire_tool
from toolweave.testing import fake_tool


def to_mcp_tool(tool: Tool) -> mt.Tool:
    """The reference: the same description built field by field as the SDK's model."""
    meta = dict(tool.meta) if tool.meta else {}
    if tool.tags:
        meta[TAGS_META_KEY] = sorted(tool.tags)
    return mt.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=dict(tool.input_schema),
        output_schema=_wire_output_schema(tool.output_schema),
        annotations=mt.ToolAnnotations(**tool.annotations.to_dict()) if tool.annotations else None,
        _meta=meta or None,
    )


def search(query: str, limit: int = 10) -> list[str]:
    """Search the docs."""
    return [query] * limit


@pytest.mark.parametrize(
    "tool",
    [
        Tool.from_function(search),
        Tool.from_function(
            search, title="Search", tags=["docs", "a"], meta={"k": 1}, annotations={"readOnlyHint": True}
        ),
        Tool.from_function(search, annotations=ToolAnnotations(), output_schema=None, description=""),
        fake_tool("bare", {"type": "object", "properties": {"x": {"type": "integer"}}}),
    ],
)
def test_the_wire_dict_is_the_sdk_tool_dump(tool: Tool) -> None:
    dumped: dict[str, Any] = to_mcp_tool(tool).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire_tool(tool) == dumped
    assert list(wire_tool(tool)) == list(dumped)


def test_only_wrapped_output_schemas_carry_the_fastmcp_marker() -> None:
    from toolweave import Tool
    from toolweave.mcp.convert import FASTMCP_WRAP_KEY, wire_tool

    def count() -> int:
        return 1

    def stats() -> dict[str, int]:
        return {"n": 1}

    wrapped, plain = wire_tool(Tool.from_function(count)), wire_tool(Tool.from_function(stats))
    assert wrapped["outputSchema"][FASTMCP_WRAP_KEY] is True
    assert FASTMCP_WRAP_KEY not in plain["outputSchema"]


@pytest.mark.parametrize(
    "result",
    [
        ToolResult([TextContent("3")], structured_content={"result": 3}),
        ToolResult([TextContent("boom")], is_error=True),
        ToolResult([], structured_content={"rows": [1, 2]}, meta={"trace": "t"}),
        ToolResult(
            [
                TextContent("noted", meta={"k": 1}),
                TextContent("for you", annotations={"audience": ["user"], "priority": 0.5}),
                ImageContent("aGk=", "image/png"),
                AudioContent("aGk=", "audio/wav", meta={"k": 2}),
                EmbeddedResource(TextResourceContents("file:///a.txt", "hi", "text/plain")),
                ResourceLink(uri="file:///b.txt", name="b", size=2),
            ]
        ),
    ],
    ids=["text and structured", "error", "structured and meta", "every block"],
)
def test_the_wire_result_is_the_sdk_result_dump(result: ToolResult) -> None:
    model = mt.CallToolResult(
        content=[to_mcp_content(block) for block in result.content],
        structured_content=result.structured_content,
        is_error=result.is_error,
        _meta=result.meta,
    )
    assert wire_result(result) == model.model_dump(by_alias=True, mode="json", exclude_none=True)
