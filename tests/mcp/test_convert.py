"""The directly built wire dict of a tool is what the SDK's `mt.Tool` dumps to."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Tool, ToolAnnotations
from toolweave.mcp.convert import to_mcp_tool, wire_tool
from toolweave.testing import fake_tool


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
