"""A bare `mcp` SDK low-level upstream (stdio) listing tools whose schemas JSON Schema cannot apply.

Usage: python broken_schema_upstream.py

Each `in_*` tool has an input schema with one broken keyword (Swagger 2's `type: file` and
`required: true`, a bound written as a string, a pattern that does not compile, draft 4's list of
`items`, a `$ref` to nothing, `type: int`); `out_broken` has a broken output schema; `fine` has
neither; `draft7_point` names draft-07 (as a TypeScript server's `zod-to-json-schema` does), whose
`items` list is a tuple. Every tool answers `{"ok": <its name>}`.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import anyio
import mcp.types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.simplefilter("ignore", MCPDeprecationWarning)

BROKEN_INPUTS: dict[str, dict[str, Any]] = {
    "in_file": {"f": {"type": "file"}},
    "in_required_true": {"f": {"type": "string", "required": True}},
    "in_string_bound": {"f": {"type": "string", "maxLength": "10"}},
    "in_bad_pattern": {"f": {"type": "string", "pattern": "(unclosed"}},
    "in_items_list": {"f": {"type": "array", "items": [{"type": "string"}]}},
    "in_dangling_ref": {"f": {"$ref": "#/$defs/Missing"}},
    "in_type_int": {"f": {"type": "int"}},
}
TOOLS = [
    types.Tool(name=name, input_schema={"type": "object", "properties": properties})
    for name, properties in BROKEN_INPUTS.items()
]
TOOLS.append(
    types.Tool(
        name="out_broken",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {"ok": {"type": "string", "maxLength": "10"}}},
    )
)
TOOLS.append(
    types.Tool(
        name="draft7_point",
        input_schema={
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}]}},
            "required": ["point"],
            "additionalProperties": False,
        },
    )
)
TOOLS.append(types.Tool(name="fine", input_schema={"type": "object", "properties": {"f": {"type": "string"}}}))


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=params.name)], structured_content={"ok": params.name}
    )


server = Server("broken-schema-upstream", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(NotificationOptions(True, True, True)))


if __name__ == "__main__":
    print("broken-schema-upstream starting", file=sys.stderr, flush=True)
    anyio.run(main_stdio)
