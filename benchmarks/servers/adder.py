"""The same `add` tool served three ways over stdio, for side-by-side round trips.

python -m benchmarks.servers.adder toolweave|lowlevel|fastmcp
"""

from __future__ import annotations

import sys
from typing import Any


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def toolweave_server(*middleware: Any) -> Any:
    from toolweave import Server

    server = Server("adder", middleware=list(middleware))
    server.add_tool(add)
    return server


def lowlevel_server() -> Any:
    """The bare SDK low-level server running the same function, validated the same way, same wire result."""
    import mcp.types as mt
    from mcp import MCPError
    from mcp.server import Server
    from pydantic import create_model

    model = create_model("add_arguments", a=(int, ...), b=(int, ...))
    validate = model.__pydantic_validator__.validate_python
    output = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}
    schema = model.model_json_schema()
    tool = mt.Tool(name="add", description="Add two numbers.", input_schema=schema, output_schema=output)

    async def list_tools(ctx: Any, params: Any) -> mt.ListToolsResult:
        return mt.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
        if params.name != "add":
            raise MCPError(mt.INVALID_PARAMS, f"Unknown tool: {params.name}")
        value = await add(**validate(params.arguments or {}).__dict__)
        return mt.CallToolResult(
            content=[mt.TextContent(type="text", text=str(value))], structured_content={"result": value}
        )

    return Server("adder", on_list_tools=list_tools, on_call_tool=call_tool)


def fastmcp_server() -> Any:
    from fastmcp import FastMCP

    server = FastMCP("adder")
    server.tool(add)
    return server


async def serve(kind: str) -> None:
    if kind == "toolweave":
        await toolweave_server().run_async()
        return
    if kind == "fastmcp":
        await fastmcp_server().run_async(transport="stdio", show_banner=False)
        return
    from mcp.server.stdio import stdio_server

    lowlevel = lowlevel_server()
    async with stdio_server() as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


if __name__ == "__main__":
    import anyio

    anyio.run(serve, sys.argv[1])
