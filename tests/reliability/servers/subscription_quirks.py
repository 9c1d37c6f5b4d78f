"""A bare-SDK upstream with subscription quirks: its `resources/subscribe` of `note://slow` takes a
while (it touches the file named by `MARKER` when asked, then answers 1.5 s later), and its tool
`updates` sends `notifications/resources/updated` for `counter` (no URI: no scheme), then for
`note://fast`.

Usage: MARKER=/path python subscription_quirks.py
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.server import NotificationOptions, Server
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.simplefilter("ignore", MCPDeprecationWarning)
RESOURCES = [types.Resource(uri="note://slow", name="slow"), types.Resource(uri="note://fast", name="fast")]
TOOLS = [types.Tool(name=name, input_schema={"type": "object"}) for name in ("pid", "subs", "updates")]
subscribed: set[str] = set()


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=RESOURCES)


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=str(params.uri), text="note")])


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    if str(params.uri) == "note://slow":
        Path(os.environ["MARKER"]).touch()  # noqa: ASYNC240 - a tiny test file
        await anyio.sleep(1.5)
    subscribed.add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    subscribed.discard(str(params.uri))
    return types.EmptyResult()


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "updates":
        await ctx.session.send_resource_updated("counter")
        await ctx.session.send_resource_updated("note://fast")
    text = str(os.getpid()) if params.name == "pid" else ",".join(sorted(subscribed))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server(
    "slow-subscribe",
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_subscribe_resource=subscribe,
    on_unsubscribe_resource=unsubscribe,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def main() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(NotificationOptions()))


if __name__ == "__main__":
    anyio.run(main)
