"""What an agent framework's model is handed of a tool's answer.

Each adapter hands on `model_answer`: the text, or, when the result holds an image, the parts in
order with each image as itself for the adapter to hand on as its framework's image (Pydantic AI,
which takes values, gets the structured content as the tool returned it when there is some).
No answer reaches a model empty: structured content without a text block is its JSON, and a
block no framework takes as a tool's answer (audio, a binary resource, a resource link) is
described in JSON without its bytes.

Example:
    >>> from toolweave.core.content import ImageContent, ResourceLink, TextContent
    >>> model_answer(ToolResult(content=[ResourceLink(uri="file:///q3.csv", name="q3")]))
    '{"type":"resource_link","uri":"file:///q3.csv","name":"q3"}'
    >>> model_answer(ToolResult(content=[TextContent("chart:"), ImageContent("iVBO", "image/png")]))
    ['chart:', ImageContent(data='iVBO', mime_type='image/png', annotations=None, meta=None, type='image')]
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from toolweave.core.content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)
from toolweave.core.result import WRAP_KEY, ToolResult, dump_json
from toolweave.core.tool import Tool

Part = str | ImageContent
"""A part of what a model is handed: text, or an image for the adapter to hand on as its framework's."""


def structured_value(result: ToolResult, tool: Tool | None = None) -> Any:
    """The result's structured content as the tool returned it: the bare value of a `tool` whose
    output schema wraps it in `{"result": ...}` (a list, a number), else the content itself;
    None without structured content."""
    data = result.structured_content
    if data is not None and tool is not None and tool.output_schema and tool.output_schema.get(WRAP_KEY):
        return data.get("result")
    return data


def model_parts(result: ToolResult, tool: Tool | None = None) -> list[Part]:
    """The parts of `result` a model is handed, in order: each text block's text, each image, and
    every other block as text (`_part`); first, for structured content without a text block,
    that content as JSON (MCP asks a server to send the text beside it, but does not require it).
    A result of images or links alone reached the model as an empty text."""
    parts = [_part(block) for block in result.content]
    if result.structured_content is not None and not any(isinstance(block, TextContent) for block in result.content):
        parts.insert(0, dump_json(structured_value(result, tool)))
    return parts


def model_answer(result: ToolResult, tool: Tool | None = None) -> str | list[Part]:
    """What a framework that takes text hands the model: the parts (`model_parts`) joined by
    newlines, or the parts themselves when one is an image.

    Example:
        >>> model_answer(ToolResult(structured_content={"users": 3}))
        '{"users":3}'
    """
    parts = model_parts(result, tool)
    if any(isinstance(part, ImageContent) for part in parts):
        return parts
    return "\n".join(part for part in parts if isinstance(part, str))


def error_text(result: ToolResult, name: str) -> str:
    """What the model reads of an `isError` answer from tool `name`: its text, else that it failed
    (an upstream may send an error without a content block).

    Example:
        >>> error_text(ToolResult(is_error=True), "deploy")
        "tool 'deploy' failed"
    """
    return result.text or f"tool {name!r} failed"


def _part(block: ContentBlock) -> Part:
    """A block as a part: an image itself, or described if its data is not base64 (an upstream's
    mistake, which ended a Pydantic AI run and would have a provider refuse the request); any
    other block as text (`_described`)."""
    if not isinstance(block, ImageContent):
        return _described(block)
    try:
        base64.b64decode(block.data, validate=True)
    except binascii.Error:
        return dump_json({"type": "image", "mimeType": block.mime_type, "error": "the image data is not valid base64"})
    return block


def _described(block: ContentBlock) -> str:
    """A block other than an image as text: its own text, an embedded text resource's, else its
    fields in JSON without its bytes (a model reads what came back, and no base64 fills its context)."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, AudioContent):
        return dump_json({"type": "audio", "mimeType": block.mime_type})
    if isinstance(block, ResourceLink):
        link: dict[str, Any] = {"type": "resource_link", "uri": block.uri, "name": block.name, "title": block.title}
        link |= {"description": block.description, "mimeType": block.mime_type, "size": block.size}
        return dump_json({key: value for key, value in link.items() if value is not None})
    assert isinstance(block, EmbeddedResource)
    contents = block.resource
    if not isinstance(contents, BlobResourceContents):
        return contents.text
    return dump_json({"type": "resource", "uri": contents.uri, "mimeType": contents.mime_type})
