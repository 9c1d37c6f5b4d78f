"""The compiled catalog of one kind of component: exposed key → entry with its prebuilt call path.

A registry compiles its catalog once, and again only when something changes. Each `Entry` holds
the exposed component, where it came from, the middleware of its chain and the chain folded
around it; the `Catalog` looks entries up and runs them the one way every kind shares:
validate once, run the prebuilt chain, mask a failure (what a failure becomes is the kind's:
an `isError` result for a tool, a `ToolError` served as a JSON-RPC error for a prompt or a
resource). Listing is a cached tuple; adapters keep their wire forms in `cache`.

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

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from toolweave.core.errors import PROTOCOL_ANSWERS, ToolweaveError
from toolweave.core.masking import ErrorPolicy, is_cancellation
from toolweave.middleware.base import Middleware

C = TypeVar("C")
R = TypeVar("R")
E = TypeVar("E", bound="Entry[Any]")

Listener = Callable[[], None]


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
        """The entry exposed as `key`, or the kind's unknown-error."""
        entry = self.entries.get(key)
        if entry is None:
            raise self.unknown(key)
        return entry


async def guarded(run: Awaitable[R], fail: Callable[[BaseException], R]) -> R:
    """`await run`, with any failure — `SystemExit` and other `BaseException`s included — turned
    into `fail(error)`; a request for client input and the task's real cancellation propagate."""
    try:
        return await run
    except PROTOCOL_ANSWERS:
        raise
    except BaseException as error:
        if is_cancellation(error):
            raise
        return fail(error)
