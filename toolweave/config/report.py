"""What the CLI shows about a composed server: its listing and, per tool, how it was made.

Plain data (dicts and lists) that `toolweave list` / `toolweave explain` render as tables and
trees, or print as JSON. The explanation follows each tool's lineage (`Tool.parent`,
`Tool.transforms`) back to its base tool, and collects the middleware chains of the server and
of every mounted server the call passes through, outermost first.

Example:
    [item["name"] for item in explain_tools(server)]
    # -> ['wx_get_forecast']
"""

from __future__ import annotations

import inspect
from typing import Any

from toolweave.core.tool import Tool
from toolweave.middleware.base import Middleware
from toolweave.middleware.selector import Selector
from toolweave.server.catalog import Entry
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


def describe_step(step: Any) -> str:
    """One transform or middleware as `explain` shows it."""
    describe = getattr(step, "describe", None)
    text = describe() if callable(describe) else None
    if isinstance(step, Middleware):
        label = step.name
        selected = Selector.coerce(step.tools)
        return f"{label} (tools: {selected.describe()})" if selected is not None else label
    return str(text) if text else repr(step)


def _children(server: Any) -> list[Any]:
    mounts: Any = getattr(server, "mounts", None)
    if callable(mounts):
        mounts = mounts()
    if mounts is None:
        mounts = getattr(server, "_mounts", ())
    return [getattr(mount, "child", mount) for mount in mounts]


def _mounted_entries(server: Any, found: dict[int, Entry]) -> None:
    """Index the catalog entries of every server mounted (at any depth) below `server` by tool id."""
    for child in _children(server):
        catalog = getattr(child, "catalog", None)
        entries = getattr(catalog, "entries", {}) if catalog is not None else {}
        for entry in entries.values():
            found[id(entry.tool)] = entry
        _mounted_entries(child, found)


def _silent(step: Any) -> bool:
    """A mount without a prefix (e.g. a config's per-source layer) changes nothing worth showing."""
    return type(step).__name__ == "Prefix" and getattr(step, "prefix", "") is None


def _lineage(tool: Tool) -> list[Tool]:
    """`tool` and its ancestors, base tool first."""
    chain = [tool]
    while chain[-1].parent is not None:
        chain.append(chain[-1].parent)
    return chain[::-1]


def explain_entry(entry: Entry, mounted: dict[int, Entry]) -> dict[str, Any]:
    """How one exposed tool was made and what runs around its calls."""
    lineage = _lineage(entry.tool)
    base = lineage[0]
    origin = base.origin
    steps = [step for tool in lineage[1:] for step in tool.transforms]
    transforms = [describe_step(step) for step in steps if not _silent(step)]
    middleware = [describe_step(layer) for layer in entry.chain]
    for ancestor in reversed(lineage[:-1]):
        inner = mounted.get(id(ancestor))
        if inner is not None:
            middleware.extend(describe_step(layer) for layer in inner.chain)
    return {
        "name": entry.tool.name,
        "exposed_by": entry.origin,
        "origin": {
            "kind": origin.kind if origin else "unknown",
            "source": origin.source if origin else "unknown",
            "name": origin.original_name if origin else base.name,
        },
        "transforms": transforms,
        "middleware": middleware,
        "schema_before": dict(base.input_schema),
        "schema_after": dict(entry.tool.input_schema),
    }


def explain_tools(server: Server, name: str | None = None) -> list[dict[str, Any]]:
    """`explain_entry` for every exposed tool of `server`, or only for `name` (`UnknownTool` if absent)."""
    catalog = server.catalog
    mounted: dict[int, Entry] = {}
    _mounted_entries(server, mounted)
    entries = [catalog.get(name)] if name is not None else list(catalog.entries.values())
    return [explain_entry(entry, mounted) for entry in entries]
