"""What `toolweave list` shows: the tools, prompts and resources a client of a server will see.

Plain data (dicts and lists, in the wire's camelCase) that the CLI renders as tables or prints
as JSON. (How each tool was made is `toolweave.explain`.)

Example:
    >>> import anyio
    >>> from toolweave import Server
    >>> server = Server("demo")
    >>> server.add_tool(lambda text: text, name="echo").name
    'echo'
    >>> [tool["name"] for tool in anyio.run(listing, server)["tools"]]
    ['echo']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolweave.core.context import Context
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource
from toolweave.core.tool import Tool
from toolweave.server.server import Server


def tool_info(tool: Tool) -> dict[str, Any]:
    """A tool as a client sees it (wire names: `inputSchema`, `outputSchema`)."""
    info: dict[str, Any] = {"name": tool.name}
    if tool.title:
        info["title"] = tool.title
    info["description"] = tool.description or ""
    info["inputSchema"] = dict(tool.input_schema)
    if tool.output_schema is not None:
        info["outputSchema"] = dict(tool.output_schema)
    if tool.annotations is not None:
        info["annotations"] = tool.annotations.to_dict()
    if tool.tags:
        info["tags"] = sorted(tool.tags)
    _add_access(info, tool)
    return info


def _add_access(info: dict[str, Any], component: Any) -> None:
    if component.access is not None:
        info["access"] = component.access.describe()


def _item_info(item: Any, key: str) -> dict[str, Any]:
    """A prompt or resource as plain data: its key (name or URI), then what it declares."""
    info: dict[str, Any] = {key: getattr(item, key, None) or str(item)}
    for attribute, wire in (
        ("name", "name"),
        ("title", "title"),
        ("description", "description"),
        ("mime_type", "mimeType"),
    ):
        value = getattr(item, attribute, None)
        if value and attribute != key:
            info[wire] = value
    arguments = getattr(item, "arguments", None)
    if arguments:
        info["arguments"] = [getattr(arg, "name", str(arg)) for arg in arguments]
    _add_access(info, item)
    return info


async def listing(server: Server, ctx: Context | None = None) -> dict[str, list[dict[str, Any]]]:
    """The tools, prompts, resources and resource templates of `server`: all of them, with what
    each needs (`access`), or — given `ctx` — what the caller of `ctx` will see."""
    found: tuple[Sequence[Tool], Sequence[Prompt], Sequence[Resource], Sequence[Resource]]
    if ctx is None:
        resources = server.resources.catalog
        found = (
            server.catalog.tools,
            server.prompts.catalog.prompts,
            resources.resources,
            resources.resource_templates,
        )
    else:
        found = (
            await server.list_tools(ctx),
            await server.list_prompts(ctx),
            await server.list_resources(ctx),
            await server.list_resource_templates(ctx),
        )
    tools, prompts, static, templates = found
    return {
        "tools": [tool_info(tool) for tool in tools],
        "prompts": [_item_info(prompt, "name") for prompt in prompts],
        "resources": [_item_info(resource, "uri") for resource in static],
        "resource_templates": [_item_info(template, "uri") for template in templates],
    }
