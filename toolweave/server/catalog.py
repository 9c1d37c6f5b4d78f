"""The compiled catalog of one kind of component: exposed key → entry with its prebuilt call path.

A registry compiles its catalog once, and again only when something changes. Each `Entry` holds
the exposed component, where it came from, the middleware of its chain and the chain folded
around it; the `Catalog` looks entries up and runs them the one way every kind shares:
validate once, run the prebuilt chain, mask a failure (what a failure becomes is the kind's:
an `isError` result for a tool, a `ToolError` served as a JSON-RPC error for a prompt or a
resource). Listing is a cached tuple; adapters keep their wire forms in `cache`.

A failure is masked by the policy of the call the client made (`BOUNDARY`): a mounted child's
front tools (`call_tool`, `get_prompt`, `read_resource`) reach its catalog inside a call of the
parent's, whose policy governs what they reach, as it governs the child's tools mounted directly.

Components with an `access` rule (`Authorize`) are seen and used only by callers it admits: a
list is one view per grant (which rules the caller passes), computed once and cached; a request
for a component the caller may not use gets the kind's unknown-error, as if it did not exist.

Example:
    >>> from toolweave.server.server import Server
    >>> server = Server("demo")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> entry = server.catalog.get("add")
    >>> entry.tool.name, entry.origin, entry.chain
    ('add', "local tool 'add'", ())
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, NoReturn, TypeVar

from toolweave.core.access import Access, grant
from toolweave.core.context import AuthInfo, Context
from toolweave.core.errors import PROTOCOL_ANSWERS, ToolError, ToolweaveError, UnknownResource
from toolweave.core.masking import ErrorPolicy, is_cancellation
from toolweave.middleware.base import Middleware
from toolweave.middleware.keys import caller_key

C = TypeVar("C")
R = TypeVar("R")
E = TypeVar("E", bound="Entry[Any]")

Listener = Callable[[], None]
security = logging.getLogger("toolweave.security")
_RULES = "access.rules"
_GRANTS = "access.grants"
BOUNDARY = "toolweave.error_policy"
"""`ctx.state` key: the error policy of the call the client made (the outermost catalog call of its
request, for that call's duration). A catalog call under it (one a front tool makes, or an
in-process call with its `Context`) masks by it what has no policy of its own (`MaskErrors`)."""
_MAX_GRANTS = 4096
"""Tokens whose grant a catalog remembers (forgotten all at once when full)."""


@dataclass(frozen=True, slots=True)
class Entry(Generic[C]):
    """One exposed component: itself, where it came from, its chain, its error policy.

    Attributes:
        component: The component as the server exposes it.
        origin: How clash errors and `explain` name where it came from.
        chain: The middleware its requests go through, outermost first.
        handler: The chain folded around the component (`None`: no chain, run it directly).
        errors: The error policy of its failures.
    """

    component: C
    origin: str
    chain: tuple[Middleware, ...]
    handler: Callable[[Any], Awaitable[Any]] | None
    errors: ErrorPolicy


@dataclass(slots=True)
class Catalog(Generic[E]):
    """The compiled view of one kind of a server's components; immutable once built but `cache`.

    Subclasses name the kind (`unknown` is its error for a missing key) and add its operations.
    """

    unknown: ClassVar[type[ToolweaveError]]

    entries: dict[str, E]
    reject_extra: bool = True
    errors: ErrorPolicy = field(default_factory=ErrorPolicy)
    cache: dict[str, Any] = field(default_factory=dict)
    """Scratch space for adapters (e.g. the wire form of a list), dropped with the catalog."""

    def get(self, key: str) -> E:
        """The entry exposed as `key` (whoever may use it), or the kind's unknown-error."""
        entry = self.entries.get(key)
        if entry is None:
            raise self.unknown(key)
        return entry

    def for_caller(self, key: str, ctx: Context) -> E:
        """The entry exposed as `key` if the caller of `ctx` may use it, else the kind's unknown-error."""
        return self.admitted(self.get(key), key, ctx)

    def admits(self, entry: E, auth: AuthInfo | None) -> bool:
        """Whether the caller `auth` may see and use `entry`."""
        return _admits(entry.component, auth)

    def admitted(self, entry: E, key: str, ctx: Context) -> E:
        """`entry`, if the caller may use it; else the kind's unknown-error (and a security log)."""
        if self.admits(entry, ctx.auth):
            return entry
        self.refuse(key, ctx)

    def refuse(self, key: str, ctx: Context) -> NoReturn:
        """The kind's unknown-error for `key`, which the caller of `ctx` may not use (logged on
        `toolweave.security`)."""
        security.warning("caller %s asked for %r without access: answered as unknown", caller_key(ctx), key)
        raise self.unknown(key)

    def rules(self) -> tuple[Access, ...]:
        """The distinct access rules of this catalog's components (computed once)."""
        rules: tuple[Access, ...] | None = self.cache.get(_RULES)
        if rules is None:
            found = (entry.component.access for entry in self.entries.values())
            rules = self.cache[_RULES] = tuple(dict.fromkeys(access for access in found if access is not None))
        return rules

    def view(self, key: str, components: Sequence[C], auth: AuthInfo | None) -> tuple[str, Sequence[C]]:
        """The caller's view of `components` (one list kind, named `key`): a cache key for it —
        `key` itself when no component has an access rule, else `key@<grant>` — and the
        components it may see, filtered once per grant and cached."""
        rules = self.rules()
        if not rules:
            return key, components
        key = f"{key}@{self._grant(rules, auth):x}"
        visible: Sequence[C] | None = self.cache.get(key)
        if visible is None:
            visible = self.cache[key] = tuple(item for item in components if _admits(item, auth))
        return key, visible

    def _grant(self, rules: tuple[Access, ...], auth: AuthInfo | None) -> int:
        """`grant(rules, auth)`, remembered per bearer token: a token's scopes and claims are fixed
        for its life (signed into a JWT, cached from introspection; an `authenticate` hook that
        sets `AuthInfo.token` keeps to the same). A caller without a token is checked each time."""
        token = auth.token if auth is not None else None
        if token is None:
            return grant(rules, auth)
        grants: dict[str, int] | None = self.cache.get(_GRANTS)
        if grants is None or len(grants) >= _MAX_GRANTS:
            grants = self.cache[_GRANTS] = {}
        bits = grants.get(token)
        if bits is None:
            bits = grants[token] = grant(rules, auth)
        return bits


def _admits(component: Any, auth: AuthInfo | None) -> bool:
    access: Access | None = component.access
    return access is None or access.allows(auth)


def is_failure(error: BaseException) -> bool:
    """Whether `error`, raised by a component or its chain, is a failure to answer with (masked):
    any exception — `SystemExit` and other `BaseException`s included — except a request for
    client input and the task's real cancellation, which propagate."""
    return not isinstance(error, PROTOCOL_ANSWERS) and not is_cancellation(error)


async def guarded(run: Awaitable[R], fail: Callable[[BaseException], R]) -> R:
    """`await run`, with a failure (`is_failure`) turned into `fail(error)`."""
    try:
        return await run
    except BaseException as error:
        if not is_failure(error):
            raise
        return fail(error)


def raising(entry: Entry[Any], kind: str, key: str, ctx: Context) -> Callable[[BaseException], Any]:
    """What a prompt's or resource's failure raises (`guarded`'s `fail`): a `ToolError` as the
    client's JSON-RPC error, quoting `key` (the name or URI the client used, not a mounted
    child's); an `UnknownResource` from a resource (a template's "no such file") as the
    unknown-error of `key`; anything else through the error policy of the call around it
    (`BOUNDARY`: a front tool's), else the entry's (masked, with an incident id)."""

    def fail(error: BaseException) -> Any:
        if isinstance(error, ToolError):
            raise error.quoting(key)
        if kind == "resource" and isinstance(error, UnknownResource):
            raise UnknownResource(key) from None
        errors: ErrorPolicy = ctx.state.get(BOUNDARY) or entry.errors
        raise errors.to_error(kind, key, error) from error

    return fail
