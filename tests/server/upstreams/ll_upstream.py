"""An upstream built with the bare `mcp` SDK low-level Server (no toolweave), stdio or HTTP.

Usage: python ll_upstream.py [http PORT | sse PORT] [tools-only | no-templates | looping-cursor | sep1686-tasks]

`sse` serves the legacy HTTP+SSE transport (`GET /sse`, `POST /messages/`) through the SDK's
`SseServerTransport`.

`tools-only` serves no prompts or resources (so it does not advertise them); `no-templates`
does not implement `resources/templates/list`; `looping-cursor` hands out the first page's cursor
again after the last page (a broken upstream whose tool list never ends); `sep1686-tasks` also
lists `research` with the 2025-11-25 `execution: {"taskSupport": "required"}` (refusing every plain
call, as the SDKs' experimental tasks do) and `summarize` with `"optional"` (a plain call answers).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

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
RESEARCH = types.Tool(
    name="research", input_schema={"type": "object"}, execution=types.ToolExecution(task_support="required")
)
SUMMARIZE = types.Tool(
    name="summarize", input_schema={"type": "object"}, execution=types.ToolExecution(task_support="optional")
)
TOOLS = [ECHO, FAIL, SLEEP, ENABLE]
if "sep1686-tasks" in sys.argv:
    TOOLS += [RESEARCH, SUMMARIZE]

GREET = types.Prompt(
    name="greet",
    title="Greeting",
    description="Greet someone.",
    arguments=[
        types.PromptArgument(name="who", description="Who to greet", required=True),
        types.PromptArgument(name="mood"),
    ],
    _meta={"example.com/origin": "ll_upstream"},
)
PLAIN = types.Prompt(name="plain", description="A prompt without arguments.")
EXTRA_PROMPT = types.Prompt(name="extra_prompt")
PROMPTS = [GREET, PLAIN]
RESOURCES = [
    types.Resource(uri="note://index", name="index", title="Index", mime_type="text/markdown"),
    types.Resource(uri="note://blob", name="blob", mime_type="application/x-demo"),
]
EXTRA_RESOURCE = types.Resource(uri="note://extra", name="extra")
TEMPLATES = [
    types.ResourceTemplate(uri_template="note://{id}/text", name="note", description="A note by id"),
    types.ResourceTemplate(uri_template="file:///{+path}", name="files"),  # reserved expansion: listed, never read
]
NOTES = {"1": "first note", "2": "second note"}


async def list_prompts(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    start = int(params.cursor) if params and params.cursor else 0  # pages of 1, to exercise pagination
    nxt = str(start + 1) if start + 1 < len(PROMPTS) else None
    return types.ListPromptsResult(prompts=PROMPTS[start : start + 1], next_cursor=nxt)


async def get_prompt(ctx: ServerRequestContext, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    args = params.arguments or {}
    if params.name == "greet":
        if "who" not in args:
            raise MCPError(types.INVALID_PARAMS, "Missing required argument: who")
        text = types.TextContent(type="text", text=f"Greet {args['who']} ({args.get('mood', '-')})")
        resource = types.TextResourceContents(uri="note://1/text", text="first note", mime_type="text/plain")
        embedded = types.EmbeddedResource(type="resource", resource=resource)
        return types.GetPromptResult(
            description="A greeting, by hand",
            messages=[
                types.PromptMessage(role="user", content=text),
                types.PromptMessage(role="assistant", content=embedded),
            ],
            _meta={"example.com/rendered": True},
        )
    if params.name in ("plain", "extra_prompt"):
        return types.GetPromptResult(
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=params.name))]
        )
    raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")


async def list_resources(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    start = int(params.cursor) if params and params.cursor else 0
    nxt = str(start + 1) if start + 1 < len(RESOURCES) else None
    return types.ListResourcesResult(resources=RESOURCES[start : start + 1], next_cursor=nxt)


async def list_templates(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)


async def read_resource(
    ctx: ServerRequestContext, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    contents: list[types.TextResourceContents | types.BlobResourceContents]
    if uri == "note://index":
        contents = [types.TextResourceContents(uri=uri, text="# Notes", mime_type="text/markdown")]
    elif uri == "note://blob":
        contents = [types.BlobResourceContents(uri=uri, blob="AAEC", mime_type="application/x-demo")]
    elif uri == "note://extra":
        contents = [types.TextResourceContents(uri=uri, text="extra note")]
    elif uri.startswith("note://") and uri.endswith("/text") and uri[7:-5] in NOTES:
        contents = [types.TextResourceContents(uri=uri, text=NOTES[uri[7:-5]], mime_type="text/plain")]
    else:
        raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {uri}", data={"uri": uri})
    return types.ReadResourceResult(contents=contents)


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    start = int(params.cursor) if params and params.cursor else 0  # pages of 3, to exercise pagination
    nxt = str(start + 3) if start + 3 < len(TOOLS) else ("0" if "looping-cursor" in sys.argv else None)
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
            PROMPTS.append(EXTRA_PROMPT)
            RESOURCES.append(EXTRA_RESOURCE)
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_prompt_list_changed()
        await ctx.session.send_resource_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text="enabled")])
    if params.name == "extra":
        return types.CallToolResult(content=[types.TextContent(type="text", text="extra!")])
    if params.name == "research" and RESEARCH in TOOLS:  # as the SDKs' experimental tasks answer
        raise MCPError(types.METHOD_NOT_FOUND, "Tool 'research' requires task augmentation")
    if params.name == "summarize" and SUMMARIZE in TOOLS:
        return types.CallToolResult(content=[types.TextContent(type="text", text="summarized")])
    raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")


COMPONENTS = {
    "on_list_prompts": list_prompts,
    "on_get_prompt": get_prompt,
    "on_list_resources": list_resources,
    "on_list_resource_templates": list_templates,
    "on_read_resource": read_resource,
}
if "no-templates" in sys.argv:
    del COMPONENTS["on_list_resource_templates"]
server = Server(
    "ll-upstream",
    version="0.1.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    **({} if "tools-only" in sys.argv else COMPONENTS),
)


async def main_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        options = server.create_initialization_options(NotificationOptions(True, True, True))
        await server.run(read, write, options)


def main_http(port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(stateless_http=False, json_response=False)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


class SseEndpoint:
    """`GET /sse` as an ASGI app: one legacy SSE connection served by the low-level server."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async with self.transport.connect_sse(scope, receive, send) as (read, write):
            options = server.create_initialization_options(NotificationOptions(True, True, True))
            await server.run(read, write, options)


def main_sse(port: int) -> None:
    import uvicorn
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    transport = SseServerTransport("/messages/")
    routes = [
        Route("/sse", SseEndpoint(transport), methods=["GET"]),
        Mount("/messages/", transport.handle_post_message),
    ]
    uvicorn.run(Starlette(routes=routes), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    print("ll-upstream starting", file=sys.stderr, flush=True)
    if sys.argv[1:2] == ["http"]:
        main_http(int(sys.argv[2]))
    elif sys.argv[1:2] == ["sse"]:
        main_sse(int(sys.argv[2]))
    else:
        anyio.run(main_stdio)
