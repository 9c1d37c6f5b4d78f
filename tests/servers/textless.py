"""A bare-SDK upstream whose answers carry no content block, which MCP allows (a server SHOULD
send structured content's JSON as text too): `stats` answers `{"users": 3, "active": true}` as
structured content only; `fail` answers `isError` with no content.

Served over stdio.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as mt
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

NO_ARGUMENTS = {"type": "object", "properties": {}}
STATS = {"type": "object", "properties": {"users": {"type": "integer"}, "active": {"type": "boolean"}}}


async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> mt.ListToolsResult:
    stats = mt.Tool(name="stats", input_schema=NO_ARGUMENTS, output_schema=STATS)
    return mt.ListToolsResult(tools=[stats, mt.Tool(name="fail", input_schema=NO_ARGUMENTS)])


async def call_tool(ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams) -> mt.CallToolResult:
    if params.name == "fail":
        return mt.CallToolResult(content=[], is_error=True)
    return mt.CallToolResult(content=[], structured_content={"users": 3, "active": True})


server = Server("textless", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
