"""`CatalogTransform`: a transform of a whole compiled catalog, not of one tool.

A tool transform maps one tool to another. A catalog transform sees every tool a server
exposes and says which tools to expose instead — some of the catalog's own, plus tools of its
own that reach the rest (`SearchTools`: a search tool and a call tool; `PromptsAsTools`,
`ResourcesAsTools`: tools that list, render and read). It runs once per catalog compile, after
the tool transforms and visibility; what it builds (a search index) lives as long as that
catalog. `server.add_transform(SearchTools())` adds one; they apply in the order added.

The tools it returns are what clients list and call, what a parent server mounts, and what
`explain` shows; a tool it hides stays reachable only through the tools it adds, and a call made
through them runs the hidden tool's full call path (validation, middleware, output check,
error masking) through `CatalogView.call`. Its own tools get the server's middleware whose
selection takes them, like any tool; one that calls a catalog tool names it through `reaches`,
so a call through it meets each middleware once (around the tool it reaches when the middleware
wraps that tool; see `toolweave.server.front_chain`).

Example:
    >>> class OnlyReadOnly(CatalogTransform):
    ...     def front(self, catalog):
    ...         return [t for t in catalog.tools if t.annotations and t.annotations.read_only_hint]
    >>> import anyio
    >>> from toolweave import Server, ToolAnnotations
    >>> server = Server("files")
    >>> @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    ... def read(path: str) -> str:
    ...     return "contents"
    >>> @server.tool
    ... def delete(path: str) -> str:
    ...     return "deleted"
    >>> server.add_transform(OnlyReadOnly())
    >>> [tool.name for tool in anyio.run(server.list_tools)]
    ['read']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from toolweave.core.context import Context
from toolweave.core.message import PromptResult
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool


class Components(Protocol):
    """A server's prompts and resources, as a catalog transform reaches them (a `Server`)."""

    async def list_prompts(self, ctx: Context | None = None) -> list[Prompt]: ...

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, *, ctx: Context | None = None
    ) -> PromptResult: ...

    async def list_resources(self, ctx: Context | None = None) -> list[Resource]: ...

    async def list_resource_templates(self, ctx: Context | None = None) -> list[Resource]: ...

    async def read_resource(self, uri: str, *, ctx: Context | None = None) -> ResourceResult: ...


class CatalogView(Protocol):
    """The compiled catalog a `CatalogTransform` reshapes."""

    @property
    def tools(self) -> tuple[Tool, ...]:
        """Every tool the catalog exposes, in order."""
        ...

    async def call(self, name: str, arguments: dict[str, Any] | None, ctx: Context) -> ToolResult:
        """Call one of `tools` through its whole call path (raises `UnknownTool` for any other name)."""
        ...

    @property
    def components(self) -> Components:
        """The server's prompts and resources."""
        ...


class CatalogTransform:
    """The base of catalog transforms: implement `front`.

    Example:
        >>> from toolweave import Server
        >>> class FirstTwo(CatalogTransform):
        ...     def front(self, catalog):
        ...         return catalog.tools[:2]
        >>> server = Server("demo")
        >>> for name in ("a", "b", "c"):
        ...     _ = server.add_tool(lambda: name, name=name)
        >>> server.add_transform(FirstTwo())
        >>> [tool.name for tool in server.catalog.tools]
        ['a', 'b']
    """

    def front(self, catalog: CatalogView) -> Sequence[Tool]:
        """The tools to expose in place of `catalog.tools` (run once per catalog compile)."""
        raise NotImplementedError

    def reaches(self, tool: Tool) -> Callable[[dict[str, Any]], str | None] | None:
        """For `tool`, one of this transform's own that calls a catalog tool through
        `CatalogView.call`: how a call's validated arguments name the tool it calls. `None` (the
        default) for a tool that calls none. A transform whose tool calls one without saying so
        here runs a middleware that wraps both twice per call."""
        return None

    def apply(self, tool: Tool) -> Tool:
        """A catalog transform leaves each tool as it is (it acts on the whole catalog)."""
        return tool

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return type(self).__name__
