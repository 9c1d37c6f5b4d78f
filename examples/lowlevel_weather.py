"""An MCP server written with the bare `mcp` SDK (low-level Server), served over stdio.

`examples/gateway.yaml` spawns it as a subprocess and mounts its tools under the prefix `wx`.
Run it alone with `python examples/lowlevel_weather.py` (it speaks MCP on stdin/stdout).
"""

from __future__ import annotations

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import Server
from mcp.server.stdio import stdio_server

FORECAST = types.Tool(
    name="get_forecast",
    description="Tomorrow's forecast for a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    annotations=types.ToolAnnotations(read_only_hint=True),
)
ALERTS = types.Tool(
    name="get_alerts",
    description="Active weather alerts for a region.",
    input_schema={"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]},
    annotations=types.ToolAnnotations(read_only_hint=True),
)


async def list_tools(ctx: object, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[FORECAST, ALERTS])


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "get_forecast":
        text = f"Forecast for {args.get('city', '?')}: mild, 18°C, light wind."
    elif params.name == "get_alerts":
        text = f"No active alerts for {args.get('region', '?')}."
    else:
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("lowlevel-weather", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
