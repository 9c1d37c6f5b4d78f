"""`Registry`: the components of one kind on one server, and how they compile into a catalog.

One generic pipeline serves tools, prompts and resources. A registry holds the components
registered on the server itself (by key: a name, or a resource's URI) and the ones a remote
upstream listed last; when its catalog is needed it gathers the candidates — upstream, local,
then each mount's (the child's compiled entries, renamed by the mount) — and for each: lets the
kind prepare it (tools: the server's transforms), drops it if hidden (`Visibility`), checks its
name, settles a clash by the server's `on_duplicate`, and folds its middleware chain once. It
tells its listeners about every change (clients get `list_changed`) and compiles lazily, once
per change.

A kind (`tools.py`, `prompts.py`, `resources.py`) supplies only what differs: the key, the
names visibility looks at, how a mount renames a child's component, the entry (which hook
folds around it) and the catalog (what a call or read is, what a failure becomes).

Example:
    >>> from toolweave.server.server import Server
    >>> server = Server("demo")
    >>> for name in ("greet", "summarize"):
    ...     _ = server.add_prompt(lambda: "Hello.", name=name)
    >>> server.prompts.set_enabled("summarize", False)  # compiled again on the next use
    >>> list(server.prompts.local), [p.name for p in server.prompts.catalog.prompts]
    (['greet', 'summarize'], ['greet'])
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, NamedTuple, Protocol, TypeVar

from toolweave.core.errors import DuplicateError, ToolweaveError, TransformError
from toolweave.core.masking import ErrorPolicy
from toolweave.middleware.base import Middleware
from toolweave.middleware.selector import Selector
from toolweave.server.catalog import Catalog, Entry, Listener
from toolweave.server.heap import Burst
from toolweave.server.listeners import Listeners
from toolweave.server.visibility import Visibility

if TYPE_CHECKING:
    from toolweave.server.mount import Mount

logger = logging.getLogger("toolweave.server")
OnDuplicate = Literal["error", "warn", "replace", "ignore"]
C = TypeVar("C")
K = TypeVar("K", bound=Catalog[Any])
Transforms = tuple[tuple[Any, Selector | None], ...]


class Owner(Protocol):
    """What a registry needs from its server: its rules, its middleware and its mounts."""

    @property
    def name(self) -> str: ...

    @property
    def on_duplicate(self) -> OnDuplicate: ...

    @property
    def extra_args(self) -> str: ...

    @property
    def error_policy(self) -> ErrorPolicy: ...

    @property
    def visibility(self) -> Visibility: ...

    @property
    def middleware(self) -> tuple[Middleware, ...]: ...

    @property
    def mounts(self) -> tuple[Mount[Any], ...]: ...

    @property
    def is_remote(self) -> bool: ...

    @property
    def running(self) -> bool: ...

    def transforms_for(self, kind: str) -> Transforms: ...


_PREFIXES = "give the servers prefixes to expose both: `prefix:` in a config entry, `mount(..., prefix=)` in Python"


def keep_new(policy: OnDuplicate, message: str, *, serving: bool = False) -> bool:
    """Apply `on_duplicate` to the clash `message` describes: True when the newcomer wins.

    A clash found while the server is `serving` (a remote upstream's list arrived or changed
    after the start) never raises: under `"error"` it is logged as an error and the first claim
    kept, so one upstream's names cannot stop the server answering every request.

    Raises:
        DuplicateError: under `on_duplicate="error"`, when not `serving`.
    """
    if policy == "error":
        if not serving:
            raise DuplicateError(message)
        logger.error("%s; the first one is kept (%s)", message, _PREFIXES)
        return False
    if policy == "warn":
        logger.warning("%s; the second one wins", message)
    return policy in ("warn", "replace")


class Registry(Generic[C, K]):
    """The components of one kind on one server: local, upstream, and (compiled) mounted.

    Subclasses set `kind` ("tool"), `unknown` (the error for a missing key) and implement
    `key`, `exposed`, `build_entry` and `build_catalog`; `check`, `shown_by`, `prepared` and
    `label` have defaults.
    """

    kind: ClassVar[str]
    unknown: ClassVar[type[ToolweaveError]]

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self._local: dict[str, C] = {}
        self._upstream: dict[str, C] = {}
        self._catalog: K | None = None
        self._shaped: dict[str, Shaped[C]] = {}  # key -> its local component after the transforms so far
        self._listeners = Listeners()
        self._burst = Burst()

    # -- what a kind supplies ----------------------------------------------------------------------

    def key(self, component: C) -> str:
        """The name (or URI) that identifies `component`."""
        raise NotImplementedError

    def label(self, key: str, *, clash: bool = False) -> str:
        """How messages name a key: `named 'greet'` (`name 'greet'` in a clash); a bare URI for resources."""
        return f"{'name' if clash else 'named'} {key!r}"

    def check(self, component: C) -> None:
        """Refuse a component that cannot be exposed (an invalid name); a hook."""

    def shown_by(self, component: C) -> tuple[str, ...]:
        """The names `enable`/`disable` may show or hide `component` by."""
        return (self.key(component),)

    def prepared(self, component: C) -> C:
        """`component` as this server exposes it: after the server's transforms for its kind."""
        return transformed(component, self.owner.transforms_for(self.kind))

    def exposed(self, entry: Entry[C], mount: Mount[Any]) -> C:
        """A mounted child's compiled entry as this server sees it: renamed, run through its chain."""
        raise NotImplementedError

    def build_entry(self, component: C, origin: str) -> Entry[C]:
        """The entry of an exposed component: its middleware chain folded once."""
        raise NotImplementedError

    def build_catalog(self, entries: dict[str, Entry[C]]) -> K:
        """The catalog of the compiled entries."""
        raise NotImplementedError

    # -- registering --------------------------------------------------------------------------------

    def add(self, component: C, *, against_mounts: bool = True) -> C:
        """Register `component`, following `on_duplicate` when its key is taken (by a local
        component, or — `against_mounts` — by one a mount exposes).

        Raises:
            TransformError: a transform added to the server selects `component` and does not fit
                it (nothing is registered).
            DuplicateError: under `on_duplicate="error"`, the key is taken (nothing is registered).
        """
        added = self._add(component)
        if against_mounts:
            self.refuse_mount_clashes([self.key(added)])
        return added

    def refuse_mount_clashes(self, keys: list[str]) -> None:
        """Under `on_duplicate="error"` on a server with mounts that is not serving yet, compile
        now, so that a local component claiming a name a mount exposes is refused when it is
        added, not at every request after; the local `keys` just added are taken back if so."""
        owner = self.owner
        if not owner.mounts or owner.on_duplicate != "error" or owner.running:
            return
        try:
            self.catalog  # noqa: B018
        except DuplicateError:
            for key in keys:
                self._local.pop(key, None)
                self._shaped.pop(key, None)
            self.changed()
            raise

    def _add(self, component: C) -> C:
        self.check(component)
        key = self.key(component)
        if key in self._local:
            message = f"server {self.owner.name!r} already has a {self.kind} {self.label(key)}"
            if self.owner.on_duplicate == "ignore":
                return self._local[key]
            if self.owner.on_duplicate == "error":
                raise DuplicateError(message)
            if self.owner.on_duplicate == "warn":
                logger.warning("%s; it was replaced by a new one", message)
        transforms = self.owner.transforms_for(self.kind)
        if transforms:
            self._shaped[key] = self._shape(key, component, transforms)
        self._local[key] = component
        self._burst.registered()
        self.changed()
        return component

    def remove(self, key: str) -> C:
        """Unregister a local component; the kind's unknown-error if there is none."""
        try:
            removed = self._local.pop(key)
        except KeyError:
            raise self.unknown(key) from None
        self._shaped.pop(key, None)
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
        """Replace what a remote upstream listed (exposed before local ones) and announce it; a
        name listed twice is warned of, the last one kept (as a list of its own would have it)."""
        listed: dict[str, C] = {}
        for component in components:
            key = self.key(component)
            if key in listed:
                said = "[%s] the upstream lists %s %s more than once; the last one is kept"
                logger.warning(said, self.owner.name, self.kind, self.label(key))
            listed[key] = component
        self._upstream = listed
        self._burst.registered(len(self._upstream))
        self.changed()

    @property
    def upstream(self) -> dict[str, C]:
        """What the upstream of a `RemoteServer` listed last, by key (empty elsewhere)."""
        return dict(self._upstream)

    # -- transforms -----------------------------------------------------------------------------------

    def fit(self) -> dict[str, Shaped[C]]:
        """Apply the transforms added since the last fit to every component they select, so that
        one which does not fit is refused by the `add_transform` that added it (a component
        registered later is refused by its `add`); the local results, for `keep`.

        Raises:
            TransformError: (or a transform's own error) the caller takes its transform back.
        """
        transforms = self.owner.transforms_for(self.kind)
        if not transforms:
            return {}
        with collector_paused():
            fitted = {key: self._shape(key, local, transforms) for key, local in self._local.items()}
            for candidate in [*self._upstream.values(), *(found for found, _ in self.mounted())]:
                transformed(candidate, transforms)  # (upstream and mounted ones: checked, not kept)
        return fitted

    def refuse_clashes(self, fitted: dict[str, Shaped[C]]) -> None:
        """Under `on_duplicate="error"`, refuse transforms that give two local components one
        name (`Rename("b")` on `a` beside a `b`): the caller takes its transform back, as for one
        that does not fit, instead of a server whose every list then fails.

        Raises:
            DuplicateError: naming both components.
        """
        if self.owner.on_duplicate != "error" or not fitted:
            return
        claimed: dict[str, str] = {}
        for key, shaped in fitted.items():
            if not getattr(shaped.shaped, "enabled", True):  # (a disabled one claims no name)
                continue
            exposed = self.key(shaped.shaped)
            if exposed in claimed:
                first = claimed[exposed]
                raise DuplicateError(
                    f"server {self.owner.name!r}: {self.kind} {self.label(exposed, clash=True)} would be claimed "
                    f"twice: by local {self.kind} {first!r} and by local {self.kind} {key!r} (after the transforms)"
                )
            claimed[exposed] = key

    def keep(self, fitted: dict[str, Shaped[C]]) -> None:
        """Keep what `fit` found, once every kind the transform touches has fitted."""
        self._shaped.update(fitted)

    def _shape(self, key: str, local: C, transforms: Transforms) -> Shaped[C]:
        """Local `local` after `transforms`: only those added since it was last shaped are applied
        (the server only appends transforms, and one that does not fit is taken back)."""
        known = self._shaped.get(key)
        if known is None or known.local is not local:
            return Shaped(local, len(transforms), transformed(local, transforms))
        if known.applied == len(transforms):
            return known
        return Shaped(local, len(transforms), transformed(known.shaped, transforms[known.applied :]))

    def _exposable(self, candidate: C, origin: str, transforms: Transforms) -> C | None:
        """`candidate` after the transforms; `None` (logged, naming it) when one does not fit it.

        Local components were checked when added (or the transform was), so this is an upstream or
        mounted one appearing later: it is left out, and the others are served.
        """
        key = self.key(candidate)
        try:
            if self._local.get(key) is not candidate:
                return transformed(candidate, transforms)
            shape = self._shaped[key] = self._shape(key, candidate, transforms)
        except TransformError as error:
            message = "server %r: %s (from %s); it is left out, the other %ss are served"
            logger.error(message, self.owner.name, error, origin, self.kind)
            return None
        return shape.shaped

    # -- change tracking ------------------------------------------------------------------------------

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

    # -- the compiled catalog -----------------------------------------------------------------------------

    @property
    def catalog(self) -> K:
        """The compiled catalog, built now if something changed since the last build."""
        catalog = self._catalog
        if catalog is None:
            with collector_paused():
                entries = self._compile()
                catalog = self._catalog = self.build_catalog(entries)
            self._burst.compiled(len(entries))
        return catalog

    def candidates(self) -> list[tuple[C, str]]:
        """Everything this server could expose, with its origin: upstream, local, then mounted."""
        owner, kind = self.owner, self.kind
        found = [(item, f"{kind} {key!r} of remote server {owner.name!r}") for key, item in self._upstream.items()]
        found += [(item, f"local {kind} {key!r}") for key, item in self._local.items()]
        return found + self.mounted()

    def mounted(self) -> list[tuple[C, str]]:
        """What the mounts expose (each child's compiled entries, renamed), with its origin."""
        found = []
        for mount in self.owner.mounts:
            child = mount.child.registry(self.kind)
            where = "remote server" if mount.child.is_remote else "server"
            for key, entry in child.catalog.entries.items():
                origin = f"{mount.label} {self.kind} {key!r} ({where} {mount.child.name!r})"
                found.append((self.exposed(entry, mount), origin))
        return found

    def _compile(self) -> dict[str, Entry[C]]:
        owner = self.owner
        visibility, transforms, local = owner.visibility, owner.transforms_for(self.kind), self._local
        by_flag = visibility.by_flag_only  # no name or tag rules: `enabled` alone decides
        entries: dict[str, Entry[C]] = {}
        for candidate, origin in self.candidates():
            component = self._exposable(candidate, origin, transforms) if transforms else candidate
            if component is None:
                continue
            enabled = component.enabled  # type: ignore[attr-defined]
            if not (enabled if by_flag else visibility.shows(enabled, component.tags, self.shown_by(component))):  # type: ignore[attr-defined]
                continue
            key = self.key(component)
            if component is not candidate or local.get(key) is not candidate:  # (`add` checked local ones)
                try:
                    self.check(component)
                except ValueError as error:
                    message = f"server {owner.name!r}: {error} (from {origin})"
                    if not owner.running:
                        raise ValueError(message) from None
                    # an upstream's list arrived or changed while serving: it cannot stop every answer
                    logger.error("%s; it is left out (give its server a shorter prefix)", message)
                    continue
            if key in entries:
                message = (
                    f"server {owner.name!r}: {self.kind} {self.label(key, clash=True)} is claimed twice: "
                    f"by {entries[key].origin} and by {origin}"
                )
                if not keep_new(owner.on_duplicate, message, serving=owner.running):
                    continue
            entries[key] = self.build_entry(component, origin)
        return entries


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for the block, if it was running.

    Compiling (or fitting) thousands of components allocates only objects that live as long as
    the catalog: pausing the collector meanwhile (and only meanwhile) spares it repeated full
    passes; a large catalog is then frozen out of its sight (`heap`).
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


class Shaped(NamedTuple, Generic[C]):
    """A local component, how many of its server's transforms have been applied, and the result."""

    local: C
    applied: int
    shaped: C


def transformed(component: C, transforms: Transforms) -> C:
    """`component` after each of `transforms` (`(transform, selector)`, in order) that selects it.

    Example:
        >>> from toolweave.core.tool import Tool
        >>> from toolweave.transforms import Rename
        >>> def q(text: str) -> str:
        ...     return text
        >>> transforms = ((Rename("search"), Selector("q")), (Rename("lookup"), Selector("fetch")))
        >>> transformed(Tool.from_function(q), transforms).name
        'search'
    """
    for transform, selector in transforms:
        if selector is None or selector.matches(component):
            component = transform.apply(component)
    return component
