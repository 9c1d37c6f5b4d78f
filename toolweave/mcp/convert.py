"""Conversions between toolweave's core objects and the `mcp` SDK's wire types.

Example:
    >>> to_mcp_content(TextContent("hi")).text
    'hi'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp.types as mt

from toolweave.core.content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from toolweave.core.result import WRAP_KEY, ToolResult
from toolweave.core.tool import Tool, ToolAnnotations

TAGS_META_KEY = "io.toolweave/tags"
TASK_SUPPORT_META_KEY = "io.toolweave/taskSupport"
"""Where a listed tool carries its `task_support` (when not "none"), so a toolweave gateway keeps it."""
FASTMCP_WRAP_KEY = "x-fastmcp-wrap-result"
"""fastmcp clients unwrap `{"result": ...}` into the bare value when an output schema says this."""


def to_mcp_contents(item: TextResourceContents | BlobResourceContents) -> Any:
    """A resource's text or blob contents in the SDK's types."""
    if isinstance(item, TextResourceContents):
        return mt.TextResourceContents(uri=item.uri, text=item.text, mime_type=item.mime_type, _meta=item.meta)
    return mt.BlobResourceContents(uri=item.uri, blob=item.blob, mime_type=item.mime_type, _meta=item.meta)


def from_mcp_contents(item: Any) -> TextResourceContents | BlobResourceContents:
    """The SDK's text or blob resource contents as toolweave's."""
    if isinstance(item, mt.BlobResourceContents):
        return BlobResourceContents(str(item.uri), item.blob, item.mime_type, item.meta)
    return TextResourceContents(str(item.uri), item.text, item.mime_type, item.meta)


def _annotations(value: dict[str, Any] | None) -> Any:
    return mt.Annotations.model_validate(value) if value else None


def to_mcp_content(block: ContentBlock) -> Any:
    """One content block in the SDK's types."""
    extra = {"annotations": _annotations(block.annotations), "_meta": block.meta}
    if isinstance(block, TextContent):
        return mt.TextContent(type="text", text=block.text, **extra)
    if isinstance(block, ImageContent):
        return mt.ImageContent(type="image", data=block.data, mime_type=block.mime_type, **extra)
    if isinstance(block, AudioContent):
        return mt.AudioContent(type="audio", data=block.data, mime_type=block.mime_type, **extra)
    if isinstance(block, EmbeddedResource):
        return mt.EmbeddedResource(type="resource", resource=to_mcp_contents(block.resource), **extra)
    if isinstance(block, ResourceLink):
        return mt.ResourceLink(
            type="resource_link",
            uri=block.uri,
            name=block.name,
            title=block.title,
            description=block.description,
            mime_type=block.mime_type,
            size=block.size,
            **extra,
        )
    raise TypeError(f"not a content block: {block!r}")


def _plain(model: Any) -> dict[str, Any] | None:
    if model is None:
        return None
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True)
    return dumped


def from_mcp_content(block: Any) -> ContentBlock:
    """One SDK content block as a toolweave content block."""
    extra = {"annotations": _plain(block.annotations), "meta": block.meta}
    if block.type == "text":
        return TextContent(block.text, **extra)
    if block.type == "image":
        return ImageContent(block.data, block.mime_type, **extra)
    if block.type == "audio":
        return AudioContent(block.data, block.mime_type, **extra)
    if block.type == "resource":
        return EmbeddedResource(from_mcp_contents(block.resource), **extra)
    return ResourceLink(
        uri=str(block.uri),
        name=block.name,
        title=block.title,
        description=block.description,
        mime_type=block.mime_type,
        size=block.size,
        **extra,
    )


def wire_result(result: ToolResult) -> dict[str, Any]:
    """A `ToolResult` in wire form (the dict `CallToolResult.model_dump(by_alias=True,
    mode="json", exclude_none=True)` gives), built directly: the SDK validates and dumps a
    handler's result once anyway, and building the models first costs ~5 µs a call.

    Example:
        >>> wire_result(ToolResult([TextContent("3")]))
        {'content': [{'type': 'text', 'text': '3'}], 'isError': False, 'resultType': 'complete'}
    """
    wire: dict[str, Any] = {"content": [_wire_block(block) for block in result.content]}
    if result.structured_content is not None:
        wire["structuredContent"] = result.structured_content
    wire["isError"] = result.is_error
    if result.meta is not None:
        wire["_meta"] = result.meta
    wire["resultType"] = "complete"  # required in the 2026-07-28 era; the handshake era's sieve drops it
    return wire


def _wire_block(block: ContentBlock) -> dict[str, Any]:
    if type(block) is TextContent and block.annotations is None:  # the common block, built directly
        text: dict[str, Any] = {"type": "text", "text": block.text}
        if block.meta is not None:
            text["_meta"] = block.meta
        return text
    dumped: dict[str, Any] = to_mcp_content(block).model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def from_mcp_result(result: mt.CallToolResult) -> ToolResult:
    """The SDK's `CallToolResult` as a `ToolResult` (content passed through unchanged; `_meta`
    without the upstream's protocol envelope, see `upstream_meta`)."""
    return ToolResult(
        content=[from_mcp_content(block) for block in result.content],
        structured_content=result.structured_content,
        is_error=bool(result.is_error),
        meta=upstream_meta(result.meta),
    )


def upstream_meta(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An upstream result's `_meta` as it goes on to our clients: without the keys the protocol
    reserves for itself (a prefix with a `modelcontextprotocol` or `mcp` label, such as
    `io.modelcontextprotocol/serverInfo`), which describe the upstream's own answer, not ours.

    Example:
        >>> upstream_meta({"io.modelcontextprotocol/serverInfo": {"name": "up"}, "acme.com/trace": "t-1"})
        {'acme.com/trace': 't-1'}
    """
    if not meta:
        return None
    kept = {key: value for key, value in meta.items() if not _reserved(key)}
    return kept or None


def _reserved(key: str) -> bool:
    prefix, slash, _ = key.partition("/")
    return bool(slash) and any(label in ("modelcontextprotocol", "mcp") for label in prefix.split("."))


_marked: dict[int, tuple[Mapping[str, Any], dict[str, Any]]] = {}
"""Wrapped output schemas marked for fastmcp clients, by the id of the schema (kept alive with it)."""


def _wire_output_schema(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if schema is None or not schema.get(WRAP_KEY):
        return schema  # as it is: schemas are never edited in place (many tools share one)
    # A wrapped non-object output, marked for fastmcp clients too: once per schema, since tools
    # returning the same type share their output schema.
    hit = _marked.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    if len(_marked) >= 4096:  # schemas of removed tools must not pile up
        _marked.clear()
    wire = {**schema, FASTMCP_WRAP_KEY: True}
    _marked[id(schema)] = (schema, wire)
    return wire


def wire_tool(tool: Tool) -> dict[str, Any]:
    """A tool's wire description (the dump of the SDK's `Tool`), built directly as a dict.

    `tools/list` of thousands of tools pays for every model built and dumped; the SDK still
    validates the whole result against the protocol schema before it is sent.
    """
    wire: dict[str, Any] = {"name": tool.name}
    if tool.title is not None:
        wire["title"] = tool.title
    if tool.description is not None:
        wire["description"] = tool.description
    wire["inputSchema"] = tool.input_schema  # shared, not copied: schemas are never edited in place
    if tool.output_schema is not None:
        wire["outputSchema"] = _wire_output_schema(tool.output_schema)
    if tool.annotations:
        wire["annotations"] = tool.annotations.to_dict()
    meta = dict(tool.meta) if tool.meta else {}
    if tool.tags:
        meta[TAGS_META_KEY] = sorted(tool.tags)
    if tool.task_support != "none":
        meta[TASK_SUPPORT_META_KEY] = tool.task_support
    if meta:
        wire["_meta"] = meta
    return wire


def annotations_from_mcp(annotations: Any) -> ToolAnnotations | None:
    """SDK tool annotations as `ToolAnnotations` (hints toolweave does not know are dropped)."""
    if annotations is None:
        return None
    known = set(ToolAnnotations.WIRE_NAMES.values())
    dumped = annotations.model_dump(by_alias=True, exclude_none=True)
    return ToolAnnotations.coerce({key: value for key, value in dumped.items() if key in known}) or None
