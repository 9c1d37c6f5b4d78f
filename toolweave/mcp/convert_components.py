"""Conversions of prompts and resources to the `mcp` SDK's wire types, and of results back.

Example:
    >>> from toolweave.core.message import Message, PromptResult
    >>> to_mcp_prompt_result(PromptResult([Message("hi")])).messages[0].content.text
    'hi'
    >>> from_mcp_prompt_result(to_mcp_prompt_result(PromptResult([Message("hi")]))).messages[0].text
    'hi'
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt

from toolweave.core.message import Message, PromptResult
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource, ResourceResult
from toolweave.mcp.convert import (
    TAGS_META_KEY,
    from_mcp_content,
    from_mcp_contents,
    to_mcp_content,
    to_mcp_contents,
    upstream_meta,
)


def _meta(meta: Any, tags: frozenset[str]) -> dict[str, Any] | None:
    merged = dict(meta) if meta else {}
    if tags:
        merged[TAGS_META_KEY] = sorted(tags)
    return merged or None


def to_mcp_prompt(prompt: Prompt) -> mt.Prompt:
    """A prompt's wire description."""
    return mt.Prompt(
        name=prompt.name,
        title=prompt.title,
        description=prompt.description,
        arguments=[
            mt.PromptArgument(name=arg.name, title=arg.title, description=arg.description, required=arg.required)
            for arg in prompt.arguments
        ],
        _meta=_meta(prompt.meta, prompt.tags),
    )


def to_mcp_prompt_result(result: PromptResult) -> mt.GetPromptResult:
    """A rendered prompt as the SDK's `GetPromptResult`."""
    return mt.GetPromptResult(
        description=result.description,
        messages=[mt.PromptMessage(role=msg.role, content=to_mcp_content(msg.content)) for msg in result.messages],
        _meta=result.meta,
    )


def to_mcp_resource(resource: Resource) -> mt.Resource:
    """A static resource's wire description."""
    return mt.Resource(
        uri=resource.uri,
        name=resource.name,
        title=resource.title,
        description=resource.description,
        mime_type=resource.mime_type,
        _meta=_meta(resource.meta, resource.tags),
    )


def to_mcp_resource_template(resource: Resource) -> mt.ResourceTemplate:
    """A resource template's wire description."""
    return mt.ResourceTemplate(
        uri_template=resource.uri,
        name=resource.name,
        title=resource.title,
        description=resource.description,
        mime_type=resource.mime_type,
        _meta=_meta(resource.meta, resource.tags),
    )


def to_mcp_read_result(result: ResourceResult) -> mt.ReadResourceResult:
    """What reading a resource returned, as the SDK's `ReadResourceResult`."""
    return mt.ReadResourceResult(contents=[to_mcp_contents(item) for item in result.contents], _meta=result.meta)


def from_mcp_prompt_result(result: mt.GetPromptResult) -> PromptResult:
    """The SDK's `GetPromptResult` as a `PromptResult` (roles and content blocks unchanged)."""
    messages = [Message(from_mcp_content(message.content), role=message.role) for message in result.messages]
    return PromptResult(messages, result.description, upstream_meta(result.meta))


def from_mcp_read_result(result: mt.ReadResourceResult) -> ResourceResult:
    """The SDK's `ReadResourceResult` as a `ResourceResult` (text, blobs and MIME types unchanged)."""
    return ResourceResult([from_mcp_contents(item) for item in result.contents], upstream_meta(result.meta))
