"""A tool written by hand with a schema JSON Schema cannot apply is refused when it is made, naming
the tool, the schema and the keyword: it was listed, and every call (or every result) was
`Internal error (incident ...)`."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolweave import Server
from toolweave.core.context import Context
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.testing import connect


async def answer(arguments: dict[str, Any], ctx: Context) -> ToolResult:
    return ToolResult(structured_content={"ok": "yes"})


@pytest.mark.parametrize(
    ("schemas", "said"),
    [
        (
            {"input_schema": {"type": "object", "properties": {"f": {"type": "file"}}}},
            "tool 'upload': input_schema cannot be applied: properties.f.type is 'file'",
        ),
        (
            {"input_schema": {"type": "object", "properties": {"f": {"$ref": "#/$defs/File"}}}},
            "tool 'upload': input_schema cannot be applied: properties.f.$ref is '#/$defs/File'",
        ),
        (
            {"input_schema": {"type": "object"}, "output_schema": {"properties": {"ok": {"maxLength": "3"}}}},
            "tool 'upload': output_schema cannot be applied: properties.ok.maxLength is '3'",
        ),
    ],
)
def test_a_hand_written_schema_json_schema_cannot_apply_is_refused_naming_the_keyword(
    schemas: dict[str, Any], said: str
) -> None:
    with pytest.raises(TypeError, match="^" + re.escape(said)):
        Tool(name="upload", run=answer, **schemas)


async def test_a_hand_written_schema_it_can_apply_is_served_as_written() -> None:
    server = Server("notes")
    schema = {"type": "object", "properties": {"f": {"$ref": "#/$defs/Name"}}, "$defs": {"Name": {"type": "string"}}}
    server.add_tool(Tool(name="upload", input_schema=schema, run=answer, output_schema={"type": "object"}))
    async with connect(server) as client:
        called = await client.call_tool("upload", {"f": "a.txt"})
        refused = await client.call_tool("upload", {"f": 3})
    assert not called.is_error and called.structured_content == {"ok": "yes"}
    assert refused.is_error and "f: expected string" in refused.content[0].text  # type: ignore[union-attr]
