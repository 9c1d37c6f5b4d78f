"""`Links`: the resource URIs inside a mounted server's results, renamed as the mount renames its resources.

A tool result's (or a prompt's messages') `ResourceLink` and `EmbeddedResource` blocks, and the
contents of a read, name the child's resources by the child's URIs; the parent's clients can read
them only under the parent's (`UriPrefix.apply`). A URI is renamed when the child serves it (one
of its resources or templates resolves it): that is exactly what the mount renames. Others (a web
page's `https://` link, the `toolweave://result` of returned bytes) are the child's to give and
pass through unchanged.

A mount whose child serves no resource adds nothing to a call (its tools and prompts are exposed
again when the child's resources change). Otherwise the cost is on results that carry such blocks:
the others are looked at block by block (their types only) and returned as they are, never copied.
A result to rename is a new one; the child's is left untouched (it may be shared).
`structured_content` is not rewritten.

Example:
    >>> from toolweave.core.content import ResourceLink, TextContent
    >>> from toolweave.core.result import ToolResult
    >>> from toolweave.server.server import Server
    >>> child = Server("child")
    >>> _ = child.add_resource(lambda: "hi", "demo://resource/x", name="x")
    >>> links = Links(UriPrefix("ev"), child.registry("resource"))
    >>> result = ToolResult([ResourceLink("demo://resource/x", "x"), ResourceLink("https://example.com", "web")])
    >>> [block.uri for block in links.tool_result(result).content]
    ['demo://ev/resource/x', 'https://example.com']
    >>> plain = ToolResult([TextContent("no links")])
    >>> links.tool_result(plain) is plain
    True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from toolweave.core.content import ContentBlock, EmbeddedResource, ResourceContents, ResourceLink
from toolweave.core.errors import UnknownResource
from toolweave.core.message import Message, PromptResult
from toolweave.core.resource import ResourceResult
from toolweave.core.result import ToolResult
from toolweave.server.uri_prefix import UriPrefix

_LINKING = (ResourceLink, EmbeddedResource)
T = TypeVar("T")


class Links:
    """The renaming of one mount's result URIs; `resources` is the child's resource registry."""

    __slots__ = ("_resources", "uris")

    def __init__(self, uris: UriPrefix, resources: Any) -> None:
        self.uris = uris
        self._resources = resources

    def serves_any(self) -> bool:
        """Whether the child serves any resource now (with none, no result of its can need renaming)."""
        return bool(self._resources.catalog.entries)

    def uri(self, uri: str) -> str:
        """The parent's URI for `uri`, if the child serves it; else `uri` itself."""
        try:
            self._resources.catalog.resolve(uri)
        except UnknownResource:
            return uri
        return self.uris.apply(uri)

    def block(self, block: ContentBlock) -> ContentBlock:
        """`block` with its resource URI renamed (the same block if nothing changes)."""
        if isinstance(block, ResourceLink):
            uri = self.uri(block.uri)
            return block if uri == block.uri else dataclasses.replace(block, uri=uri)
        if isinstance(block, EmbeddedResource):
            uri = self.uri(block.resource.uri)
            if uri == block.resource.uri:
                return block
            return dataclasses.replace(block, resource=dataclasses.replace(block.resource, uri=uri))
        return block

    def tool_result(self, result: ToolResult) -> ToolResult:
        """`result` with the URIs of its links and embedded resources renamed."""
        content = _renamed(result.content, self.block, lambda block: block)
        return result if content is None else dataclasses.replace(result, content=content)

    def prompt_result(self, result: PromptResult) -> PromptResult:
        """`result` with the URIs of its messages' links and embedded resources renamed."""
        messages = _renamed(result.messages, self._message, lambda message: message.content)
        return result if messages is None else dataclasses.replace(result, messages=messages)

    def read_result(self, result: ResourceResult, child_uri: str, uri: str) -> ResourceResult:
        """`result` of reading the child's `child_uri`, as the read of the parent's `uri`: contents
        labelled `child_uri` are labelled `uri`, others (a folder's entries) renamed when the child
        serves them; the same result when nothing changes."""
        contents = [self._contents(item, child_uri, uri) for item in result.contents]
        if all(new is old for new, old in zip(contents, result.contents, strict=True)):
            return result
        return ResourceResult(contents, result.meta)

    def _contents(self, item: ResourceContents, child_uri: str, uri: str) -> ResourceContents:
        renamed = uri if item.uri == child_uri else self.uri(item.uri)
        return item if renamed == item.uri else dataclasses.replace(item, uri=renamed)

    def _message(self, message: Message) -> Message:
        content = self.block(message.content)
        return message if content is message.content else Message(content, role=message.role)


def _renamed(items: Sequence[T], rename: Callable[[T], T], block_of: Callable[[T], Any]) -> list[T] | None:
    """`items` each through `rename`, or None when none changes (most results hold no link:
    those are only looked through, `block_of` giving each item's content block)."""
    if not any(isinstance(block_of(item), _LINKING) for item in items):
        return None
    renamed = [rename(item) for item in items]
    return None if all(new is old for new, old in zip(renamed, items, strict=True)) else renamed


class Linked:
    """A mounted tool's (or prompt's) `run`, its results renamed by one or more mounts' `Links`.

    Mounted again (a nested mount), it is not wrapped again: the outer mount's links join the
    chain, so a call through any depth still adds one call (`Linked.of`).
    """

    __slots__ = ("renames", "run")

    def __init__(self, run: Callable[..., Awaitable[Any]], renames: tuple[Callable[[Any], Any], ...]) -> None:
        self.run = run
        self.renames = renames

    @classmethod
    def of(cls, run: Callable[..., Awaitable[Any]], rename: Callable[[Any], Any]) -> Linked:
        """`run` with `rename` applied to its results (after any renaming `run` already does)."""
        if isinstance(run, Linked):
            return cls(run.run, (*run.renames, rename))
        return cls(run, (rename,))

    async def __call__(self, arguments: dict[str, Any], ctx: Any) -> Any:
        result = await self.run(arguments, ctx)
        for rename in self.renames:
            result = rename(result)
        return result
