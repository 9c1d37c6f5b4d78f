"""An upstream built with the bare `mcp` SDK low-level Server (no toolweave), stdio or HTTP.

Usage: python ll_upstream.py [http PORT]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.simplefilter("ignore", MCPDeprecationWarning)

ECHO = types.Tool(
    name="echo",
    title="Echo",
    description="Echo text back; reports progress.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}, "steps": {"type": "integer"}},
        "required": ["text"],
    },
    output_schema={
        "type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]
    },
    annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    _meta={"example.com/origin": "ll_upstream"},
)
FAIL = types.Tool(name="fail", input_schema={"type": "object"})
SLEEP = types.Tool(
    name="sleep",
    input_schema={
        "type": "object",
        "properties": {
            "seconds": {"type": "number"},
            "marker": {"type": "string"},
            "started": {"type": "string"},
        },
    },
)
ENABLE = types.Tool(name="enable_extra", input_schema={"type": "object"})
EXTRA = types.Tool(name="extra", input_schema={"type": "object"})
TOOLS = [ECHO, FAIL, SLEEP, ENABLE]


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    start = int(params.cursor) if params and params.cursor else 0  # pages of 3, to exercise pagination
    nxt = str(start + 3) if start + 3 < len(TOOLS) else None
    return types.ListToolsResult(tools=TOOLS[start : start + 3], next_cursor=nxt)


async def call_tool(
    ctx: ServerRequestContext, params: types.CallToolRequestParams
) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "echo":
        steps = int(args.get("steps", 0))
        for i in range(1, steps + 1):
            await ctx.session.report_progress(i, total=steps, message=f"step {i}")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=args["text"])],
            structured_content={"echo": args["text"]},
        )
    if params.name == "fail":
        return types.CallToolResult(content=[types.TextContent(type="text", text="boom")], is_error=True)
    if params.name == "sleep":
        marker = args.get("marker")
        if args.get("started"):
            Path(args["started"]).touch()  # noqa: ASYNC240 - a tiny test file
        try:
            await anyio.sleep(float(args.get("seconds", 5)))
        except anyio.get_cancelled_exc_class():
            if marker:
                Path(marker).write_text("cancelled")  # noqa: ASYNC240 - must not await while cancelled
            raise
        return types.CallToolResult(content=[types.TextContent(type="text", text="slept")])
    if params.name == "enable_extra":
        if EXTRA not in TOOLS:
            TOOLS.append(EXTRA)
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text="enabled")])
    if params.name == "extra":
        return types.CallToolResult(content=[types.TextContent(type="text", text="extra!")])
    raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")


server = Server("ll-upstream", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)


def main_http(port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(stateless_http=False, json_response=False)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    print("ll-upstream starting", file=sys.stderr, flush=True)
    if sys.argv[1:2] == ["http"]:
        main_http(int(sys.argv[2]))
    else:
        anyio.run(main_stdio)
