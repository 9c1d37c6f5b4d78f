"""Catalog transforms applied to a compiled tool catalog (see `toolweave.transforms.catalog`).

`fronted(catalog, transforms, owner)` gives each transform a view of the catalog so far and
compiles what it returns into the next catalog: a tool it keeps keeps its entry (and chain); a
tool of its own gets an entry made by `front_entry`: the server's middleware whose selection takes
it, each run once per call with the tool it reaches (`toolweave.server.front_chain`), and the
server's error policy. A tool of its own named like a catalog tool it
hides (`SearchTools`' `call_tool` over a server's own `call_tool`) is a clash, settled by the
server's `on_duplicate` like any other: by default a `DuplicateError` naming both.

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
from toolweave.middleware.base import ToolCall
from toolweave.server.front_chain import Reached
from toolweave.server.registry import keep_new
from toolweave.telemetry.events import reaching
from toolweave.transforms.catalog import CatalogTransform, Components

if TYPE_CHECKING:
    from toolweave.server.tools import ToolCatalog, ToolEntry, ToolOwner


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
        entry = self._catalog.entries.get(name)
        failed = reaching(ctx, entry.tool if entry is not None else None)  # (the call's outcome is the tool's)
        return await self._catalog.call(name, arguments, ctx, failed=failed)


def fronted(
    catalog: ToolCatalog,
    transforms: Sequence[CatalogTransform],
    owner: ToolOwner,
    front_entry: Callable[[Tool, str, Reached | None], ToolEntry],
) -> ToolCatalog:
    """`catalog` reshaped by each of `transforms` in turn; `front_entry(tool, origin, reached)`
    makes the entry of a tool a transform adds (`reached`: the catalog tool a call of it reaches).

    Raises:
        DuplicateError: a transform exposes two tools of one name, or (under `on_duplicate="error"`,
            when not serving) a tool of its own named like a catalog tool.
    """
    for transform in transforms:
        kept = catalog.entries
        entries: dict[str, ToolEntry] = {}
        for tool in transform.front(_View(catalog, owner)):
            check_name(tool.name)
            if tool.name in entries:
                raise DuplicateError(f"{transform.describe()} exposes two tools named {tool.name!r}")
            entry = kept.get(tool.name)
            if entry is None or (entry.component is not tool and _own_wins(owner, transform, entry)):
                origin = f"tool {tool.name!r} of {transform.describe()}"
                entry = front_entry(tool, origin, _reached(catalog, transform.reaches(tool)))
            entries[tool.name] = entry
        catalog = dataclasses.replace(catalog, entries=entries, cache={})
    return catalog


def _reached(catalog: ToolCatalog, named: Callable[[dict[str, Any]], str | None] | None) -> Reached | None:
    """The catalog tool a call reaches, read from its arguments by `named` (`reaches`): the
    tool, if `catalog` has one of that name its caller may use."""
    if named is None:
        return None
    entries = catalog.entries

    def reached(call: ToolCall) -> Tool | None:
        name = named(call.arguments)
        entry = entries.get(name) if name is not None else None
        if entry is None or not catalog.admits(entry, call.ctx.auth):
            return None
        return entry.component

    return reached


def _own_wins(owner: ToolOwner, transform: CatalogTransform, shadowed: ToolEntry) -> bool:
    """Settle a tool of `transform`'s own named like the catalog's `shadowed` by `on_duplicate`:
    True when the transform's tool is exposed (a model calling the name would reach it)."""
    name = shadowed.component.name
    message = (
        f"server {owner.name!r}: tool name {name!r} is claimed twice: by {shadowed.origin} and by "
        f"{transform.describe()}, which exposes a tool of its own under that name; rename one of them "
        "(the server's with a `Rename` transform, or the transform's with its name option, "
        "e.g. `SearchTools(call_tool=...)`)"
    )
    return keep_new(owner.on_duplicate, message, serving=owner.running)
