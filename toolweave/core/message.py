"""`Message` and `PromptResult`: what a prompt renders to, and how return values become one.

| a prompt returns                          | messages                                         |
|-------------------------------------------|--------------------------------------------------|
| `str`                                     | one user message                                 |
| `Message("text", role="assistant")`       | that message                                     |
| a `PromptMessage`-like object or dict     | one message (its `role` and `content`)           |
| a content block or `Image`/`Audio`/`File` | one user message carrying it                     |
| a `list` or `tuple` of any of these       | a conversation, one message per item             |
| `PromptResult`                            | passes through unchanged                         |
| `None`                                    | no messages                                      |
| anything else (`dict`, model, number...)  | one user message with its JSON (or `str`) text   |

Example:
    >>> result = to_prompt_result(["Review this code.", Message("Sure.", role="assistant")])
    >>> [(message.role, message.text) for message in result.messages]
    [('user', 'Review this code.'), ('assistant', 'Sure.')]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from toolweave.core.content import (
    CONTENT_TYPES,
    MEDIA_HELPERS,
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

Role = Literal["user", "assistant"]
_ROLES = ("user", "assistant")


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(to_jsonable_python(value, inf_nan_mode="null"), ensure_ascii=False)
    except Exception:
        return str(value)


def _foreign_content(value: Any) -> ContentBlock | None:
    """A content block from another library's object or a dict (`{"type": "text", "text": ...}`)."""
    get = value.get if isinstance(value, Mapping) else lambda key, default=None: getattr(value, key, default)
    kind = get("type")
    text, data = get("text"), get("data")
    if kind == "text" and isinstance(text, str):
        return TextContent(text)
    if kind in ("image", "audio") and isinstance(data, str):
        mime = _mime(get) or "application/octet-stream"
        return ImageContent(data, mime) if kind == "image" else AudioContent(data, mime)
    if kind == "resource":
        return _foreign_resource(get("resource"))
    return None


def _mime(get: Callable[..., Any]) -> str | None:
    mime = get("mime_type") or get("mimeType")
    return str(mime) if mime else None


def _foreign_resource(resource: Any) -> EmbeddedResource | None:
    """An embedded resource from another library's resource contents (text or blob)."""
    if resource is None:
        return None
    get = resource.get if isinstance(resource, Mapping) else lambda key, default=None: getattr(resource, key, default)
    uri, text, blob = get("uri"), get("text"), get("blob")
    if uri is None:
        return None
    if isinstance(text, str):
        return EmbeddedResource(TextResourceContents(str(uri), text, _mime(get)))
    if isinstance(blob, str):
        return EmbeddedResource(BlobResourceContents(str(uri), blob, _mime(get)))
    return None


def to_content(value: Any) -> ContentBlock:
    """A message's content: text, a content block, a media helper, or anything else as text."""
    if isinstance(value, str):
        return TextContent(value)
    if isinstance(value, CONTENT_TYPES):
        return value
    if isinstance(value, MEDIA_HELPERS):
        return value.to_content()
    return _foreign_content(value) or TextContent(_text(value))


@dataclass(frozen=True, slots=True, init=False)
class Message:
    """One message of a prompt: a role and one content block.

    Args:
        content: A string (the usual case), a content block (`TextContent`, `ImageContent`,
            `EmbeddedResource`, ...) or an `Image`/`Audio`/`File` helper.
        role: `"user"` (default) or `"assistant"`.

    Example:
        >>> Message("Looks good to me.", role="assistant").text
        'Looks good to me.'
    """

    content: ContentBlock
    role: Role

    def __init__(self, content: Any, role: Role = "user") -> None:
        if role not in _ROLES:
            raise ValueError(f"a message role is 'user' or 'assistant', not {role!r}")
        object.__setattr__(self, "content", to_content(content))
        object.__setattr__(self, "role", role)

    @property
    def text(self) -> str | None:
        """The text of a text message, else `None`."""
        return self.content.text if isinstance(self.content, TextContent) else None


def _message_like(value: Any) -> Message | None:
    """A `Message` from a `PromptMessage`-like object or `{"role": ..., "content": ...}`."""
    if isinstance(value, Mapping):
        role, content = value.get("role"), value.get("content")
    else:
        role, content = getattr(value, "role", None), getattr(value, "content", None)
    if role in _ROLES and content is not None:
        return Message(content, role=role)
    return None


def to_message(value: Any) -> Message:
    """One message from one returned item."""
    if isinstance(value, Message):
        return value
    if isinstance(value, (str, *CONTENT_TYPES, *MEDIA_HELPERS)):
        return Message(value)
    return _message_like(value) or Message(_text(value))


@dataclass(frozen=True, slots=True)
class PromptResult:
    """A rendered prompt: its messages, in order, and an optional description.

    Example:
        >>> PromptResult([Message("Hi")]).messages[0].role
        'user'
    """

    messages: list[Message] = field(default_factory=list)
    description: str | None = None
    meta: dict[str, Any] | None = None


def to_prompt_result(value: Any, description: str | None = None) -> PromptResult:
    """A prompt function's return value as a `PromptResult` (see the module table)."""
    if isinstance(value, PromptResult):
        return value
    if value is None:
        return PromptResult([], description)
    if isinstance(value, list | tuple):
        return PromptResult([to_message(item) for item in value], description)
    return PromptResult([to_message(value)], description)
