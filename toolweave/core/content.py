"""Content blocks of a tool result, and the `Image` / `Audio` / `File` helpers.

These mirror the MCP content types but do not depend on the `mcp` SDK; `toolweave.mcp`
converts them at the edge.

Example:
    >>> Image(data=b"\\x89PNG...", format="png").to_content().mime_type
    'image/png'
"""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal


@dataclass(slots=True)
class TextContent:
    """Plain text for the model."""

    text: str
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    type: Literal["text"] = field(default="text", init=False)


@dataclass(slots=True)
class ImageContent:
    """An image, base64-encoded in `data`."""

    data: str
    mime_type: str
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    type: Literal["image"] = field(default="image", init=False)


@dataclass(slots=True)
class AudioContent:
    """An audio clip, base64-encoded in `data`."""

    data: str
    mime_type: str
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    type: Literal["audio"] = field(default="audio", init=False)


@dataclass(slots=True)
class TextResourceContents:
    """The text of a resource."""

    uri: str
    text: str
    mime_type: str | None = None
    meta: dict[str, Any] | None = None


@dataclass(slots=True)
class BlobResourceContents:
    """The bytes of a resource, base64-encoded in `blob`."""

    uri: str
    blob: str
    mime_type: str | None = None
    meta: dict[str, Any] | None = None


ResourceContents = TextResourceContents | BlobResourceContents


@dataclass(slots=True)
class EmbeddedResource:
    """A resource carried inside the result."""

    resource: ResourceContents
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    type: Literal["resource"] = field(default="resource", init=False)


@dataclass(slots=True)
class ResourceLink:
    """A pointer to a resource the client can read."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    type: Literal["resource_link"] = field(default="resource_link", init=False)


ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink
CONTENT_TYPES = (TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _read(data: bytes | None, path: str | Path | None) -> bytes:
    if (data is None) == (path is None):
        raise ValueError("give exactly one of data= or path=")
    return data if data is not None else Path(path).read_bytes()  # type: ignore[arg-type]


def _guess_mime(path: str | Path | None, format: str | None, kind: str, default: str) -> str:
    if format:
        return format if "/" in format else f"{kind}/{format.lower()}"
    if path is not None:
        guessed, _ = mimetypes.guess_type(str(path))
        if guessed:
            return guessed
    return default


@dataclass(slots=True)
class Image:
    """Return an image from a tool: `Image(path="chart.png")` or `Image(data=..., format="png")`."""

    data: bytes | None = None
    path: str | Path | None = None
    format: str | None = None

    def to_content(self) -> ImageContent:
        """The image as an MCP image block."""
        mime = _guess_mime(self.path, self.format, "image", "image/png")
        return ImageContent(data=_b64(_read(self.data, self.path)), mime_type=mime)


@dataclass(slots=True)
class Audio:
    """Return audio from a tool: `Audio(path="hello.wav")` or `Audio(data=..., format="wav")`."""

    data: bytes | None = None
    path: str | Path | None = None
    format: str | None = None

    def to_content(self) -> AudioContent:
        """The clip as an MCP audio block."""
        mime = _guess_mime(self.path, self.format, "audio", "audio/wav")
        return AudioContent(data=_b64(_read(self.data, self.path)), mime_type=mime)


@dataclass(slots=True)
class File:
    """Return a file from a tool, as an embedded resource (text when it decodes as UTF-8)."""

    data: bytes | None = None
    path: str | Path | None = None
    name: str | None = None
    mime_type: str | None = None

    def to_content(self) -> EmbeddedResource:
        """The file as an embedded resource block."""
        raw = _read(self.data, self.path)
        name = self.name or (Path(self.path).name if self.path is not None else "file")
        mime = self.mime_type or _guess_mime(self.path or name, None, "application", "application/octet-stream")
        uri = f"file:///{name}"
        if mime.startswith("text/") or mime in ("application/json", "application/xml"):
            try:
                return EmbeddedResource(TextResourceContents(uri=uri, text=raw.decode(), mime_type=mime))
            except UnicodeDecodeError:
                pass
        return EmbeddedResource(BlobResourceContents(uri=uri, blob=_b64(raw), mime_type=mime))


MEDIA_HELPERS = (Image, Audio, File)
