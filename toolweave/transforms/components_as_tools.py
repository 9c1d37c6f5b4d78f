"""`PromptsAsTools` and `ResourcesAsTools`: a server's prompts and resources for clients that
only speak tools.

Many agent clients call tools and nothing else. These catalog transforms add tools that reach
the server's prompts and resources through their own catalogs — so each render or read runs the
prompt's or resource's own chain (validation, middleware, masking), exactly as `prompts/get` or
`resources/read` would:

- `PromptsAsTools()`: `list_prompts` (names, descriptions, arguments) and `get_prompt(name,
  arguments)` (the rendered messages);
- `ResourcesAsTools()`: `list_resources` (resources and templates) and `read_resource(uri)`
  (the contents: text as text, bytes base64-encoded).

Lists are read at call time, so prompts and resources added later are found without a recompile,
and each caller lists only what it may use (`Authorize` on prompts and resources). The tools reach
the prompts and resources of the server they are added to, as that server sees them: put them on
the outermost server (the one served), since a parent's `Authorize` on a mounted server's prompts
does not hold for that server's own `get_prompt`.

Example:
    >>> from toolweave import Server
    >>> server = Server("docs")
    >>> @server.prompt
    ... def review(code: str) -> str:
    ...     '''Review a piece of code.'''
    ...     return f"Please review: {code}"
    >>> server.add_transform(PromptsAsTools())
    >>> [tool.name for tool in server.catalog.tools]
    ['list_prompts', 'get_prompt']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolweave.core.content import BlobResourceContents, ContentBlock, TextContent, TextResourceContents
from toolweave.core.context import Context
from toolweave.core.errors import ToolError, UnknownPrompt, UnknownResource
from toolweave.core.result import ToolResult, dump_json
from toolweave.core.tool import Tool, ToolAnnotations
from toolweave.transforms.catalog import CatalogTransform, CatalogView

_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_UNKEYED = None
"""The `varies_with` of these tools: their answers depend on the caller's access (`Authorize` on
prompts and resources), on what the prompt or resource reached reads of the request, and on
prompts and resources added since; no `Cache` key captures that, so none caches them."""
_NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def _answer(data: dict[str, Any], text: str | None = None) -> ToolResult:
    return ToolResult([TextContent(text if text is not None else dump_json(data))], data)


def _wire(block: ContentBlock) -> dict[str, Any]:
    """A content block as the wire shows it (`mimeType`, not `mime_type`)."""
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    shown: dict[str, Any] = {"type": block.type}
    for key in ("data", "mime_type", "uri", "name"):
        value = getattr(block, key, None)
        if value is not None:
            shown["mimeType" if key == "mime_type" else key] = value
    resource = getattr(block, "resource", None)
    if resource is not None:
        shown["resource"] = _contents(resource)
    return shown


def _contents(item: TextResourceContents | BlobResourceContents) -> dict[str, Any]:
    shown: dict[str, Any] = {"uri": item.uri}
    if item.mime_type:
        shown["mimeType"] = item.mime_type
    if isinstance(item, TextResourceContents):
        shown["text"] = item.text
    else:
        shown["blob"] = item.blob
    return shown


@dataclass(frozen=True)
class PromptsAsTools(CatalogTransform):
    """Add `list_prompts` and `get_prompt` tools (see the module docs).

    Attributes:
        list_tool: The listing tool's name.
        get_tool: The rendering tool's name.

    Example:
        >>> import anyio
        >>> from toolweave import Server
        >>> server = Server("docs")
        >>> _ = server.add_prompt(lambda name: f"Say hello to {name}.", name="greet")
        >>> server.add_transform(PromptsAsTools())
        >>> anyio.run(server.call_tool, "get_prompt", {"name": "greet", "arguments": {"name": "Ada"}}).text
        'user: Say hello to Ada.'
    """

    list_tool: str = "list_prompts"
    get_tool: str = "get_prompt"

    def front(self, catalog: CatalogView) -> list[Tool]:
        """The catalog's tools, then the two prompt tools."""
        components = catalog.components

        async def list_prompts(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            prompts = [
                {
                    "name": prompt.name,
                    **({"description": prompt.description} if prompt.description else {}),
                    "arguments": [
                        {"name": a.name, "description": a.description, "required": a.required} for a in prompt.arguments
                    ],
                }
                for prompt in await components.list_prompts(ctx)
            ]
            return _answer({"prompts": prompts})

        async def get_prompt(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            name = arguments["name"]
            try:
                rendered = await components.get_prompt(name, arguments.get("arguments") or {}, ctx=ctx)
            except UnknownPrompt:
                raise ToolError(f"no prompt named {name!r}: see `{self.list_tool}`") from None
            except ToolError as error:
                raise error.unattributed() from None
            messages = [{"role": m.role, "content": _wire(m.content)} for m in rendered.messages]
            text = "\n\n".join(f"{m.role}: {m.text}" for m in rendered.messages if m.text is not None)
            data = {"messages": messages, **({"description": rendered.description} if rendered.description else {})}
            return _answer(data, text)

        return [
            *catalog.tools,
            Tool(
                name=self.list_tool,
                description=f"List the prompts of this server (render one with `{self.get_tool}`).",
                input_schema=_NO_ARGUMENTS,
                annotations=_READ_ONLY,
                varies_with=_UNKEYED,
                run=list_prompts,
            ),
            Tool(
                name=self.get_tool,
                description="Render a prompt of this server by name, with its arguments; returns its messages.",
                input_schema={
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The prompt's name."},
                        "arguments": {
                            "type": "object",
                            "additionalProperties": {"type": "string"},
                            "description": "The prompt's arguments, as strings.",
                            "default": {},
                        },
                    },
                    "required": ["name"],
                },
                annotations=_READ_ONLY,
                varies_with=_UNKEYED,
                run=get_prompt,
            ),
        ]


@dataclass(frozen=True)
class ResourcesAsTools(CatalogTransform):
    """Add `list_resources` and `read_resource` tools (see the module docs).

    Attributes:
        list_tool: The listing tool's name.
        read_tool: The reading tool's name.

    Example:
        >>> import anyio
        >>> from toolweave import Server
        >>> server = Server("docs")
        >>> _ = server.add_resource(lambda: "Buy milk", "memo://today", name="today")
        >>> server.add_transform(ResourcesAsTools())
        >>> anyio.run(server.call_tool, "read_resource", {"uri": "memo://today"}).text
        'Buy milk'
    """

    list_tool: str = "list_resources"
    read_tool: str = "read_resource"

    def front(self, catalog: CatalogView) -> list[Tool]:
        """The catalog's tools, then the two resource tools."""
        components = catalog.components

        async def list_resources(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            def shown(resource: Any, key: str) -> dict[str, Any]:
                item = {key: resource.uri, "name": resource.name}
                if resource.description:
                    item["description"] = resource.description
                if resource.mime_type:
                    item["mimeType"] = resource.mime_type
                return item

            resources = [shown(r, "uri") for r in await components.list_resources(ctx)]
            templates = [shown(r, "uriTemplate") for r in await components.list_resource_templates(ctx)]
            return _answer({"resources": resources, "templates": templates})

        async def read_resource(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            uri = arguments["uri"]
            try:
                read = await components.read_resource(uri, ctx=ctx)
            except UnknownResource:
                raise ToolError(f"no resource at {uri!r}: see `{self.list_tool}`") from None
            except ToolError as error:
                raise error.unattributed() from None
            contents = [_contents(item) for item in read.contents]
            texts = [item.text for item in read.contents if isinstance(item, TextResourceContents)]
            text = texts[0] if len(texts) == len(read.contents) == 1 else None
            return _answer({"contents": contents}, text)

        return [
            *catalog.tools,
            Tool(
                name=self.list_tool,
                description=f"List this server's resources and resource templates (read one with `{self.read_tool}`).",
                input_schema=_NO_ARGUMENTS,
                annotations=_READ_ONLY,
                varies_with=_UNKEYED,
                run=list_resources,
            ),
            Tool(
                name=self.read_tool,
                description="Read a resource of this server by URI (a template filled in, too); returns its contents.",
                input_schema={
                    "type": "object",
                    "properties": {"uri": {"type": "string", "description": "The resource's URI."}},
                    "required": ["uri"],
                },
                annotations=_READ_ONLY,
                varies_with=_UNKEYED,
                run=read_resource,
            ),
        ]
