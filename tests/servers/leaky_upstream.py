"""A bare-SDK upstream that leaks what it was called with, and can hang: for the gateway's
redaction, masking and timeout rules.

Tools (each takes `q` and `api_key`):
- `fetch_error`: answers JSON-RPC -32603 quoting the URL it would call, key included;
- `fetch_is_error`: answers an `isError` result quoting that URL;
- `fetch_ok`: answers a result that echoes the key in its text and structured content;
- `fetch_progress`: reports progress quoting the URL, and answers with the URL in `_meta`;
- `bad_params`: answers JSON-RPC -32602 (the arguments were refused);
- `refuse`: answers JSON-RPC -32602 quoting its arguments;
- `hang`: never answers;
- `off_schema`: declares an output schema and answers structured content that breaks it.

Prompts: `lookup` (takes `q`) answers JSON-RPC -32602 quoting its argument.

Served over stdio; `leaky_upstream.py --http PORT` serves it over streamable HTTP instead.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp.types as mt
from mcp import MCPError
from mcp.server import Server, ServerRequestContext

ARGS = {"type": "object", "properties": {"q": {"type": "string"}, "api_key": {"type": "string"}}}
NAMES = ["fetch_error", "fetch_is_error", "fetch_ok", "fetch_progress", "bad_params", "refuse", "hang"]
COUNT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> mt.ListToolsResult:
    tools = [mt.Tool(name=name, input_schema=ARGS) for name in NAMES]
    tools.append(mt.Tool(name="off_schema", input_schema={"type": "object"}, output_schema=COUNT))
    return mt.ListToolsResult(tools=tools)


async def call_tool(ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams) -> mt.CallToolResult:
    args = params.arguments or {}
    url = f"https://api.example.test/v1?q={args.get('q')}&api_key={args.get('api_key')}"
    if params.name == "fetch_error":
        raise MCPError(mt.INTERNAL_ERROR, f"HTTP 500 for url '{url}'")
    if params.name == "bad_params":
        raise MCPError(mt.INVALID_PARAMS, "q must not be empty")
    if params.name == "refuse":
        raise MCPError(mt.INVALID_PARAMS, f"no results for q={args.get('q')!r} with key {args.get('api_key')!r}")
    if params.name == "hang":
        await anyio.sleep_forever()
    if params.name == "off_schema":
        return mt.CallToolResult(content=[mt.TextContent(type="text", text="off")], structured_content={"n": "x"})
    if params.name == "fetch_progress":
        await ctx.session.report_progress(1, total=2, message=f"fetching {url}")
        return mt.CallToolResult(content=[mt.TextContent(type="text", text="fetched")], _meta={"source": url})
    text = f"GET {url}"
    if params.name == "fetch_is_error":
        return mt.CallToolResult(content=[mt.TextContent(type="text", text=f"failed: {text}")], is_error=True)
    return mt.CallToolResult(
        content=[mt.TextContent(type="text", text=text)], structured_content={"url": url, "key": args.get("api_key")}
    )


async def list_prompts(ctx: ServerRequestContext[Any], params: Any) -> mt.ListPromptsResult:
    return mt.ListPromptsResult(prompts=[mt.Prompt(name="lookup", arguments=[mt.PromptArgument(name="q")])])


async def get_prompt(ctx: ServerRequestContext[Any], params: mt.GetPromptRequestParams) -> mt.GetPromptResult:
    q = (params.arguments or {}).get("q")
    raise MCPError(mt.INVALID_PARAMS, f"no prompt for q={q!r}")


server = Server(
    "leaky", on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts, on_get_prompt=get_prompt
)

if __name__ == "__main__" and sys.argv[1:2] == ["--http"]:
    import uvicorn

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
elif __name__ == "__main__":
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
