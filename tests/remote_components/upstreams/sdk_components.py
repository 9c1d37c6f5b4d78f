"""An upstream built with the bare `mcp` SDK low-level Server: prompts, resources and templates
whose URIs test the gateway's renaming, a completer and subscriptions.

Usage: python sdk_components.py [failing-resources | failing-templates]

`failing-resources` answers `resources/list` with an internal error, `failing-templates` answers
`resources/templates/list` so; the other lists are served in pages of one.

Completion answers with what it was asked (the prompt name or template URI, the argument and the
other arguments), or, for the value `many`, with 150 values and no total.

Reading `data://files/denied` fails with -32000 "permission denied" (JSON-RPC's first server
error code, as FastMCP answers a `PermissionError`).

Tools: `subscribed()` (the URIs subscribed to, sorted), `bump()` (announces an update of
`data://counter`), `pid()`.
"""

from __future__ import annotations

import os
import sys
import warnings

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.simplefilter("ignore", MCPDeprecationWarning)

TOPIC = types.PromptArgument(name="topic", title="Topic", description="What to ask about", required=True)
PROMPTS = [types.Prompt(name="ask", title="Ask", arguments=[TOPIC, types.PromptArgument(name="tone")])]
RESOURCES = [
    types.Resource(uri="data://items?limit=5", name="items"),
    types.Resource(uri="data://counter", name="counter"),
]
TEMPLATES = [
    types.ResourceTemplate(uri_template="data://files/{name}", name="files"),
    types.ResourceTemplate(uri_template="data://city/{city}/weather", name="weather"),
]
TOOLS = [types.Tool(name=name, input_schema={"type": "object"}) for name in ("subscribed", "bump", "pid")]
SUBSCRIBED: set[str] = set()


def page(items: list[object], params: types.PaginatedRequestParams | None) -> tuple[list[object], str | None]:
    start = int(params.cursor) if params and params.cursor else 0
    return items[start : start + 1], (str(start + 1) if start + 1 < len(items) else None)


async def list_prompts(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=PROMPTS)


async def get_prompt(ctx: ServerRequestContext, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    text = types.TextContent(type="text", text=f"Tell me about {(params.arguments or {}).get('topic')}")
    return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=text)])


async def list_resources(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    if "failing-resources" in sys.argv:
        raise MCPError(types.INTERNAL_ERROR, "the resource index is down")
    items, cursor = page(RESOURCES, params)
    return types.ListResourcesResult(resources=items, next_cursor=cursor)


async def list_templates(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    if "failing-templates" in sys.argv:
        raise MCPError(types.INTERNAL_ERROR, "the template index is down")
    items, cursor = page(TEMPLATES, params)
    return types.ListResourceTemplatesResult(resource_templates=items, next_cursor=cursor)


async def read_resource(ctx: ServerRequestContext, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    if uri == "data://files/denied":  # JSON-RPC's first server error code, as FastMCP answers a PermissionError
        raise MCPError(-32000, "permission denied")
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=f"read {uri}")])


async def complete(ctx: ServerRequestContext, params: types.CompleteRequestParams) -> types.CompleteResult:
    if params.argument.value == "many":  # more than the 100 a result may hold, and no total
        return types.CompleteResult(completion=types.Completion(values=[f"v{n}" for n in range(150)]))
    ref = params.ref
    name = ref.name if isinstance(ref, types.PromptReference) else ref.uri
    others = params.context.arguments if params.context else None
    value = f"{name}:{params.argument.name}={params.argument.value} {others}"
    return types.CompleteResult(completion=types.Completion(values=[value], total=1, has_more=False))


async def subscribe(ctx: ServerRequestContext, params: types.SubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe(ctx: ServerRequestContext, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.discard(str(params.uri))
    return types.EmptyResult()


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "bump":
        await ctx.session.send_resource_updated("data://counter")
        return types.CallToolResult(content=[types.TextContent(type="text", text="bumped")])
    if params.name == "pid":
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(os.getpid()))])
    return types.CallToolResult(content=[types.TextContent(type="text", text=" ".join(sorted(SUBSCRIBED)))])


server = Server(
    "sdk-components",
    version="0.1.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
    on_completion=complete,
    on_subscribe_resource=subscribe,
    on_unsubscribe_resource=unsubscribe,
)


async def main() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(NotificationOptions(True, True, True)))


if __name__ == "__main__":
    anyio.run(main)
