"""`Registry`: what the prompt and resource registries of a server share.

A registry holds the components registered on the server itself (by name or URI), the ones an
upstream listed last (for a `RemoteServer`), and gathers those of mounted servers when it
compiles its catalog. It follows `on_duplicate`, tells listeners about every change (clients get
`list_changed`) and compiles its catalog lazily, once per change. Subclasses say what a
component's key is and how the catalog is compiled.

Example:
    >>> from toolweave.server.server import Server
    >>> server = Server("demo")
    >>> @server.prompt
    ... def greet(name: str) -> str:
    ...     '''Greet someone.'''
    ...     return f"Say hello to {name}."
    >>> server.prompts.local.keys(), server.prompts.key(server.prompts.local["greet"])
    (dict_keys(['greet']), 'greet')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from toolweave.core.errors import DuplicateError, ToolweaveError
from toolweave.server.catalog import Listener
from toolweave.server.components import logger
from toolweave.server.listeners import Listeners

if TYPE_CHECKING:
    from toolweave.server.mount import Mount
    from toolweave.server.server import Server

C = TypeVar("C")
Catalog = TypeVar("Catalog")


class Registry(Generic[C, Catalog]):
    """The components of one kind on one server: local, upstream, and (when compiled) mounted.

    Subclasses set `kind` ("prompt"), `unknown` (the error for a missing key), `exposed` (the
    `Mount` method listing a child's components) and implement `key` and `_compile`.
    """

    kind: ClassVar[str]
    unknown: ClassVar[type[ToolweaveError]]
    exposed: ClassVar[str]

    def __init__(self, server: Server) -> None:
        self.server = server
        self._local: dict[str, C] = {}
        self._upstream: dict[str, C] = {}
        self._catalog: Catalog | None = None
        self._listeners = Listeners()

    def key(self, component: C) -> str:
        """The name (or URI) that identifies `component`."""
        raise NotImplementedError

    def label(self, key: str) -> str:
        """How messages name a key: `named 'greet'` for prompts, the bare URI for resources."""
        return f"named {key!r}"

    # -- registering ---------------------------------------------------------------------------

    def check(self, component: C) -> None:
        """Refuse a component that cannot be registered (e.g. an invalid name); a hook."""

    def add(self, component: C) -> C:
        """Register `component`, following `on_duplicate` when its key is taken."""
        self.check(component)
        key = self.key(component)
        if key in self._local:
            message = f"server {self.server.name!r} already has a {self.kind} {self.label(key)}"
            if self.server.on_duplicate == "ignore":
                return self._local[key]
            if self.server.on_duplicate == "error":
                raise DuplicateError(message)
            if self.server.on_duplicate == "warn":
                logger.warning("%s; it was replaced by a new one", message)
        self._local[key] = component
        self.changed()
        return component

    def remove(self, key: str) -> C:
        """Unregister a local component; the kind's unknown-error if there is none."""
        try:
            removed = self._local.pop(key)
        except KeyError:
            raise self.unknown(key) from None
        self.changed()
        return removed

    def set_enabled(self, key: str, enabled: bool) -> None:
        """Enable or disable a local component."""
        if key not in self._local:
            raise self.unknown(key)
        self._local[key] = self._local[key].replace(enabled=enabled)  # type: ignore[attr-defined]
        self.changed()

    @property
    def local(self) -> dict[str, C]:
        """The components registered on this server itself, by key."""
        return dict(self._local)

    def set_upstream(self, components: Iterable[C]) -> None:
        """Replace what a remote upstream listed (served before local ones) and announce it."""
        self._upstream = {self.key(component): component for component in components}
        self.changed()

    @property
    def upstream(self) -> dict[str, C]:
        """What the upstream of a `RemoteServer` listed last, by key (empty elsewhere)."""
        return dict(self._upstream)

    # -- change tracking -------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener()` whenever the exposed components change; returns an unsubscribe function."""
        return self._listeners.add(listener)

    def invalidate(self) -> None:
        """Drop the compiled catalog (middleware or mounts changed) without announcing a change."""
        self._catalog = None

    def changed(self) -> None:
        """Drop the compiled catalog and tell listeners (clients get `list_changed`)."""
        self._catalog = None
        self._listeners.notify()

    def follow(self, mounted: Mount) -> None:
        """Expose the components of a newly mounted server, and follow its changes."""
        child = getattr(mounted.child, f"{self.kind}s", None)
        if isinstance(child, Registry):
            child.subscribe(self.changed)
        self.changed()

    # -- the compiled catalog ----------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The compiled catalog, built now if something changed since the last build."""
        catalog = self._catalog
        if catalog is None:
            catalog = self._catalog = self._compile()
        return catalog

    def _candidates(self) -> list[tuple[C, str]]:
        """Everything this server could expose, with its origin: upstream, local, then mounted."""
        remote = f"remote server {self.server.name!r}"
        found = [(item, f"{self.kind} {key!r} of {remote}") for key, item in self._upstream.items()]
        found += [(item, f"local {self.kind} {key!r}") for key, item in self._local.items()]
        for mounted in self.server._mounts:
            exposed: Any = getattr(mounted, self.exposed, None)
            if exposed is not None:
                found.extend(exposed())
        return found

    def _compile(self) -> Catalog:
        raise NotImplementedError
