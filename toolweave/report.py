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

import inspect
from typing import Any

from toolweave.core.tool import Tool
from toolweave.server.server import Server

LISTS = (
    ("prompts", "list_prompts", "name"),
    ("resources", "list_resources", "uri"),
    ("resource_templates", "list_resource_templates", "uri"),
)


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
    return info


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _item_info(item: Any, key: str) -> dict[str, Any]:
    """A prompt or resource as plain data: its key (name or URI), then what it declares."""
    if isinstance(item, dict):
        return {k: v for k, v in item.items() if v is not None}
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
    return info


async def listing(server: Server) -> dict[str, list[dict[str, Any]]]:
    """The tools, prompts, resources and resource templates a client of `server` will see."""
    tools = [tool_info(tool) for tool in await server.list_tools()]
    result: dict[str, list[dict[str, Any]]] = {"tools": tools}
    for kind, method, key in LISTS:
        lister = getattr(server, method, None)
        items = await _maybe_await(lister()) if lister is not None else []
        result[kind] = [_item_info(item, key) for item in items]
    return result
