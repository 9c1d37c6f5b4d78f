"""`Mount`: a live link from a parent server to a child's compiled catalogs.

The parent's registries take each of the child's compiled entries — tools, prompts, resources —
renamed by the mount, with the child's prebuilt chain as the component's `run` (see
`Registry.candidates`). Nested mounts therefore flatten into the parent's catalogs: a call
through any depth is one dict lookup, and a child without middleware adds no call at all. The
mount itself knows no kinds: it is the child, the renaming (`Prefix`, `UriPrefix`) and the
subscriptions that keep the parent following the child.

Rules for mounted components:
- **Live**: the mount follows the child: what it adds, removes, enables or disables later shows
  up in the parent, whose catalogs recompile and whose clients get `list_changed`.
- **Order**: the parent's transforms see the prefixed tool; the parent's middleware wraps the
  child's middleware, which wraps the child's component (parent outermost).
- **Context**: the request `Context` (state, auth, deadline, progress) is passed unchanged.
- **Validation** happens once, at the parent's boundary, against the exposed schema, with the
  parent's `extra_args` policy.
- **Error masking**: the parent's `mask_error_details` applies to mounted components, because
  the parent is the boundary its clients see; a tool's own policy (`MaskErrors`) still wins.
  So it does to what the child's front tools reach (`call_tool`, `get_prompt`, `read_resource`:
  the parent's call's policy, `catalog.BOUNDARY`, masks the child's catalog under it).
- **Names**: a tool or prompt is exposed as `{prefix}{separator}{name}`, a resource URI gets the
  prefix as its first path segment; a clash follows the parent's `on_duplicate`, and the error
  names both origins.
- **Links**: the resource URIs inside a mounted tool's result or prompt's messages (`ResourceLink`
  and `EmbeddedResource` blocks) are renamed like its resources when the child serves them, so
  a client can read the link it was given (`Links`); other URIs pass through unchanged.

Example:
    >>> from toolweave import Server
    >>> billing, gateway = Server("billing"), Server("gateway")
    >>> billing.add_tool(lambda invoice: f"invoice {invoice}", name="get").name
    'get'
    >>> mounted = gateway.mount(billing, prefix="billing")
    >>> [tool.name for tool in gateway.catalog.tools], mounted.label
    (['billing_get'], "mount 'billing'")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, Protocol, TypeVar

from toolweave.core.names import check_name, check_separator
from toolweave.core.tool import Tool
from toolweave.server.links import Linked, Links
from toolweave.server.uri_prefix import UriPrefix
from toolweave.telemetry.providers import tracing_configured
from toolweave.telemetry.spans import traced_mount


class Child(Protocol):
    """What a mount needs from the server it mounts."""

    name: str

    @property
    def is_remote(self) -> bool: ...

    def registry(self, kind: str) -> Any:
        """The child's registry of `kind` ("tool", "prompt", "resource")."""
        ...

    def subscribe_updates(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener(uri)` whenever one of the child's resources changes."""
        ...


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
        return UriPrefix(self.prefix).apply(uri)

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


S = TypeVar("S", bound=Child)
P = ParamSpec("P")
R = TypeVar("R")


class Mount(Generic[S]):
    """A child server exposed under a prefix, following the child's changes.

    Args:
        child: The mounted server (a `Server`, or a `RemoteServer`).
        prefix: Prepended to exposed names; `None` exposes them unchanged.
        separator: Between prefix and name (characters from `[A-Za-z0-9_.-]`).
    """

    def __init__(self, child: S, *, prefix: str | None, separator: str = "_") -> None:
        if not callable(getattr(child, "registry", None)):
            raise TypeError(f"can only mount a toolweave Server or RemoteServer, not {type(child).__name__}")
        if prefix is not None:
            check_name(prefix, "mount prefix")
        check_separator(separator)
        self.child = child
        self.rename = Prefix(prefix, separator, child.name)
        self.uris = UriPrefix(prefix)
        self.links = Links(self.uris, child.registry("resource")) if prefix else None
        self._unsubscribe: list[Callable[[], None]] = []

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

    def traced(
        self, run: Callable[P, Awaitable[R]], target: tuple[str, str], failed: Callable[[R], bool] | None = None
    ) -> Callable[P, Awaitable[R]]:
        """`run` (the child's path for the component `target` names, e.g. `(TOOL_NAME, "search")`)
        in a `mount` span, when tracing is configured as the catalog compiles
        (`toolweave.telemetry.spans.traced_mount`)."""
        if not tracing_configured():
            return run
        return traced_mount(run, prefix=self.prefix, server=self.child.name, target=target, failed=failed)

    def linked(
        self, run: Callable[..., Awaitable[R]], rename: Callable[[Links], Callable[[R], R]]
    ) -> Callable[..., Awaitable[R]]:
        """`run` (a mounted tool's or prompt's path) with the resource URIs in its results renamed
        by `rename(self.links)` (`Links.tool_result`, `Links.prompt_result`); `run` itself when
        the mount renames nothing (no prefix, or a child serving no resource)."""
        if self.links is None or not self.links.serves_any():  # (the child's resources changing recompiles this)
            return run
        return Linked.of(run, rename(self.links))

    def follow(self, kind: str, listener: Callable[[], None]) -> None:
        """Call `listener` whenever the child's exposed components of `kind` change."""
        self._unsubscribe.append(self.child.registry(kind).subscribe(listener))

    def follow_updates(self, listener: Callable[[str], None]) -> None:
        """Call `listener(uri)`, with the parent's URI, whenever one of the child's resources changes;
        news about something that is no URI (an upstream's `counter`) is dropped: the parent serves
        nothing it could be under its prefix."""
        apply = self.uris.apply

        def updated(uri: str) -> None:
            try:
                exposed = apply(uri)
            except ValueError:  # no scheme
                return
            listener(exposed)

        self._unsubscribe.append(self.child.subscribe_updates(updated))

    def close(self) -> None:
        """Stop following the child."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
