"""A minimal stdio MCP server built with the bare `mcp` SDK: one `echo` tool (benchmark upstream)."""

from __future__ import annotations

import anyio
import mcp.types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext

ECHO = types.Tool(
    name="echo",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ECHO])


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = (params.arguments or {}).get("text", "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("echo-upstream", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
