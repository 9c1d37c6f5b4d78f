"""A bare-SDK upstream whose tool answers with structured content and no content block, which MCP
allows (a server SHOULD also send the JSON as text): `stats` answers `{"users": 3, "active": true}`.

Served over stdio.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as mt
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

STATS = {"type": "object", "properties": {"users": {"type": "integer"}, "active": {"type": "boolean"}}}


async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> mt.ListToolsResult:
    empty = {"type": "object", "properties": {}}
    return mt.ListToolsResult(tools=[mt.Tool(name="stats", input_schema=empty, output_schema=STATS)])


async def call_tool(ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams) -> mt.CallToolResult:
    return mt.CallToolResult(content=[], structured_content={"users": 3, "active": True})


server = Server("structured-only", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
