"""`Mount`: a live link from a parent server to a child's compiled catalog.

The parent's catalog takes each of the child's exposed tools, renamed `{prefix}{sep}{name}`,
with the child's prebuilt call path (its middleware included) as the tool's `run`. Nested mounts
therefore flatten into the parent's catalog: a call through any depth is one dict lookup.

Example:
    >>> billing = Server("billing")          # doctest: +SKIP
    >>> gateway.mount(billing, prefix="billing")   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolweave.core.context import Context
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import ToolCall

if TYPE_CHECKING:
    from toolweave.server.catalog import Entry
    from toolweave.server.server import Server


@dataclass(frozen=True, slots=True)
class Prefix:
    """The renaming a mount applies to a child's tools (recorded for `explain`)."""

    prefix: str | None
    separator: str
    child: str

    def name(self, name: str) -> str:
        """The exposed name of the child's tool `name`."""
        return f"{self.prefix}{self.separator}{name}" if self.prefix else name

    def describe(self) -> str:
        """How `explain` shows this step."""
        return f"mounted from server {self.child!r} with prefix {self.prefix!r}"

    def apply(self, tool: Tool) -> Tool:
        """The child's tool as the parent exposes it."""
        return tool.derive(self, name=self.name(tool.name))


def _through_chain(entry: Entry) -> Callable[[dict[str, Any], Context], Any]:
    """The child's whole call path (its middleware, then the tool) as a tool `run`."""
    handler = entry.handler
    if handler is None:
        return entry.tool.run
    tool = entry.tool

    async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        return await handler(ToolCall(tool, arguments, ctx))

    return run


class Mount:
    """A child server exposed under a prefix, following the child's changes."""

    def __init__(self, child: Server, *, prefix: str | None, separator: str = "_") -> None:
        from toolweave.server.server import check_name

        if prefix is not None:
            check_name(prefix, "mount prefix")
        self.child = child
        self.rename = Prefix(prefix, separator, child.name)
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def prefix(self) -> str | None:
        """The prefix of exposed names, or `None`."""
        return self.rename.prefix

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever the child's exposed tools change."""
        self._unsubscribe = self.child.subscribe(listener)

    def close(self) -> None:
        """Stop following the child."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def exposed_tools(self) -> list[tuple[Tool, str]]:
        """The child's tools as the parent sees them, with a description of their origin."""
        found = []
        for entry in self.child.catalog.entries.values():
            tool = self.rename.apply(entry.tool).replace(run=_through_chain(entry))
            origin = f"mount {self.prefix!r} tool {entry.tool.name!r} (server {self.child.name!r})"
            found.append((tool, origin))
        return found
