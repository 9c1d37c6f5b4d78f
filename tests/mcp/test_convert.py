"""The directly built wire dict of a tool is what the SDK's `mt.Tool` dumps to."""

from __future__ import annotations

from typing import Any

import mcp.types as mt
import pytest

from toolweave import Tool, ToolAnnotations
from toolweave.mcp.convert import TAGS_META_KEY, _wire_output_schema, wire_tool
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
