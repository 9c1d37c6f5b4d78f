"""`Mount`: a live link from a parent server to a child's compiled catalog.

The parent's catalog takes each of the child's exposed tools, renamed `{prefix}{sep}{name}`,
with the child's prebuilt call path (its middleware included) as the tool's `run`. Nested mounts
therefore flatten into the parent's catalog: a call through any depth is one dict lookup, and a
child without middleware adds no call at all.

Rules for mounted tools:
- **Live**: the mount follows the child: tools it adds, removes, enables or disables later show
  up in the parent, whose catalog recompiles and whose clients get `list_changed`.
- **Order**: the parent's transforms see the prefixed tool; the parent's middleware wraps the
  child's middleware, which wraps the child's tool (parent outermost).
- **Context**: the request `Context` (state, auth, deadline, progress) is passed unchanged.
- **Validation** happens once, at the parent's boundary, against the exposed schema, with the
  parent's `extra_args` policy.
- **Error masking**: the parent's `mask_error_details` applies to mounted tools, because the
  parent is the boundary its clients see; the child's server-level setting does not. A tool's
  own policy (`MaskErrors`, `Tool.error_policy`) travels with it and still wins.
- **Names**: exposed names stay within `[A-Za-z0-9_.-]{1,128}`; a clash follows the parent's
  `on_duplicate`, and the error names both origins.

Example:
    >>> from toolweave import Server
    >>> billing, gateway = Server("billing"), Server("gateway")
    >>> billing.add_tool(lambda invoice: f"invoice {invoice}", name="get").name
    'get'
    >>> mounted = gateway.mount(billing, prefix="billing")
    >>> [tool.name for tool in gateway.catalog.tools]
    ['billing_get']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolweave.core.context import Context
from toolweave.core.errors import DuplicateError
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import ToolCall

if TYPE_CHECKING:
    from toolweave.core.prompt import Prompt
    from toolweave.core.resource import Resource
    from toolweave.server.catalog import Entry
    from toolweave.server.server import Server

SEPARATOR_PATTERN = re.compile(r"[A-Za-z0-9_.-]{0,16}")


@dataclass(frozen=True, slots=True)
class Prefix:
    """The renaming a mount applies to a child's names (recorded for `explain`).

    Example:
        >>> rename = Prefix("billing", "_", "billing-server")
        >>> rename.name("get"), rename.uri("resource://invoices/{id}")
        ('billing_get', 'resource://billing/invoices/{id}')
    """

    prefix: str | None
    separator: str
    child: str

    def name(self, name: str) -> str:
        """The exposed name of the child's tool (or prompt) `name`."""
        return f"{self.prefix}{self.separator}{name}" if self.prefix else name

    def uri(self, uri: str) -> str:
        """The exposed URI of the child's resource: the prefix becomes the first path segment."""
        if not self.prefix:
            return uri
        scheme, sep, rest = uri.partition("://")
        if not sep:
            return f"{self.prefix}/{uri}"
        return f"{scheme}://{self.prefix}/{rest}"

    def describe(self) -> str:
        """How `explain` shows this step."""
        if self.prefix is None:
            return f"mounted from server {self.child!r} without prefix"
        return f"mounted from server {self.child!r} with prefix {self.prefix!r}"

    def apply(self, tool: Tool) -> Tool:
        """The child's tool as the parent exposes it."""
        if not self.prefix:
            return tool.derive(self)
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
    """A child server exposed under a prefix, following the child's changes.

    Args:
        child: The mounted server (a `Server`, or a `RemoteServer`).
        prefix: Prepended to exposed names; `None` exposes them unchanged.
        separator: Between prefix and name (characters from `[A-Za-z0-9_.-]`).
    """

    def __init__(self, child: Server, *, prefix: str | None, separator: str = "_") -> None:
        from toolweave.server.server import Server, check_name

        if not isinstance(child, Server):
            raise TypeError(f"can only mount a toolweave Server or RemoteServer, not {type(child).__name__}")
        if prefix is not None:
            check_name(prefix, "mount prefix")
        if not SEPARATOR_PATTERN.fullmatch(separator):
            raise ValueError(
                f"mount separator {separator!r} is not valid: use up to 16 characters from A-Z, a-z, 0-9, "
                "'_', '.', '-'"
            )
        self.child = child
        self.rename = Prefix(prefix, separator, child.name)
        self._unsubscribe: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f"Mount({self.child!r}, prefix={self.prefix!r})"

    @property
    def prefix(self) -> str | None:
        """The prefix of exposed names, or `None`."""
        return self.rename.prefix

    @property
    def label(self) -> str:
        """How messages name this mount: `mount 'gh'`, or `mount without prefix`."""
        return f"mount {self.prefix!r}" if self.prefix is not None else "mount without prefix"

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever the child's exposed tools change."""
        self._unsubscribe = self.child.subscribe(listener)

    def close(self) -> None:
        """Stop following the child."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def origin(self, name: str) -> str:
        """How clash errors and `explain` name a tool that came through this mount."""
        kind = "remote server" if getattr(self.child, "is_remote", False) else "server"
        return f"{self.label} tool {name!r} ({kind} {self.child.name!r})"

    def exposed_tools(self) -> list[tuple[Tool, str]]:
        """The child's tools as the parent sees them, with a description of their origin."""
        found = []
        for entry in self.child.catalog.entries.values():
            tool = self.rename.apply(entry.tool).replace(run=_through_chain(entry))
            found.append((tool, self.origin(entry.tool.name)))
        return found

    def exposed_prompts(self) -> list[tuple[Prompt, str]]:
        """The child's prompts as the parent sees them (`{prefix}{separator}{name}`), with their origin."""
        from toolweave.server.prompts import mounted_prompts

        return mounted_prompts(self)

    def exposed_resources(self) -> list[tuple[Resource, str]]:
        """The child's resources and templates as the parent sees them (`scheme://prefix/path`)."""
        from toolweave.server.resources import mounted_resources

        return mounted_resources(self)


def mount_path(start: Server, target: Server) -> list[Server] | None:
    """The chain of mounts (and imports) from `start` down to `target`, both included, if any."""
    if start is target:
        return [start]
    for child in start._held_children():
        below = mount_path(child, target)
        if below is not None:
            return [start, *below]
    return None


def refuse_cycle(parent: Server, child: Server) -> None:
    """`ValueError` if mounting `child` into `parent` would make a server contain itself."""
    path = mount_path(child, parent)
    if path is not None:
        chain = " -> ".join(repr(server.name) for server in [parent, *path])
        raise ValueError(
            f"cannot mount server {child.name!r} into {parent.name!r}: it would contain itself ({chain})"
        )


def import_tools(parent: Server, child: Server, prefix: str | None, separator: str) -> list[Tool]:
    """Register copies of `child`'s exposed tools on `parent` (see `Server.import_tools`)."""
    refuse_cycle(parent, child)
    copies = [tool for tool, _ in Mount(child, prefix=prefix, separator=separator).exposed_tools()]
    if parent.on_duplicate == "error":
        taken = [tool.name for tool in copies if tool.name in parent.local_tools]
        if taken:
            raise DuplicateError(
                f"server {parent.name!r} already has tools named {taken}; importing them from "
                f"server {child.name!r} would replace them"
            )
    for tool in copies:
        parent.add_tool(tool)
    if child not in parent._imported_from:
        parent._imported_from.append(child)
    return copies
