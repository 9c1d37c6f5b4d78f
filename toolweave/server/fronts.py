"""Catalog transforms applied to a compiled tool catalog (see `toolweave.transforms.catalog`).

`fronted(catalog, transforms, owner)` gives each transform a view of the catalog so far and
compiles what it returns into the next catalog: a tool it keeps keeps its entry (and chain); a
tool of its own gets an entry with no middleware (the calls it makes meet the middleware of the
tool they reach) and the server's error policy.

Example:
    >>> from toolweave.server.server import Server
    >>> from toolweave.transforms.catalog import CatalogTransform
    >>> class FirstOnly(CatalogTransform):
    ...     def front(self, catalog):
    ...         return catalog.tools[:1]
    >>> server = Server("demo")
    >>> server.add_tool(lambda: 1, name="one"), server.add_tool(lambda: 2, name="two")  # doctest: +ELLIPSIS
    (...)
    >>> server.add_transform(FirstOnly())
    >>> [tool.name for tool in server.catalog.tools]
    ['one']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from toolweave.core.context import Context
from toolweave.core.errors import DuplicateError
from toolweave.core.names import check_name
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.transforms.catalog import CatalogTransform, Components

if TYPE_CHECKING:
    from toolweave.server.tools import ToolCatalog, ToolEntry


class _View:
    """A compiled catalog as a catalog transform sees it."""

    __slots__ = ("_catalog", "components")

    def __init__(self, catalog: ToolCatalog, components: Components) -> None:
        self._catalog = catalog
        self.components = components

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self._catalog.tools

    async def call(self, name: str, arguments: dict[str, Any] | None, ctx: Context) -> ToolResult:
        return await self._catalog.call(name, arguments, ctx)


def fronted(
    catalog: ToolCatalog,
    transforms: Sequence[CatalogTransform],
    components: Components,
    bare_entry: Callable[[Tool, str], ToolEntry],
) -> ToolCatalog:
    """`catalog` reshaped by each of `transforms` in turn; `bare_entry(tool, origin)` makes the
    entry of a tool a transform adds (no middleware)."""
    for transform in transforms:
        kept = catalog.entries
        entries: dict[str, ToolEntry] = {}
        for tool in transform.front(_View(catalog, components)):
            check_name(tool.name)
            if tool.name in entries:
                raise DuplicateError(f"{transform.describe()} exposes two tools named {tool.name!r}")
            entry = kept.get(tool.name)
            if entry is None or entry.component is not tool:
                entry = bare_entry(tool, f"tool {tool.name!r} of {transform.describe()}")
            entries[tool.name] = entry
        catalog = dataclasses.replace(catalog, entries=entries, cache={})
    return catalog
