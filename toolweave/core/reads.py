"""Request reads: values a tool takes from the request on each call, computed once per call.

An injected argument filled by a plain read of the request (`FromHeader`, `FromClaim`,
`FromContext`) is a *read*; `Tool.varies_with` lists a tool's reads, through every transform and
mount. `Cache` needs their values before the call, to key its entries on them, and the tool needs
them in the call. So that both see the same values and nothing is read twice, `Cache` computes
them with `values_of` inside `remembering(ctx)`, and each read made by `read_once` returns the
value already computed for the call. Outside `remembering`, a read simply reads.

Example:
    >>> import anyio
    >>> from toolweave.core.context import Context
    >>> seen = []
    >>> tenant = read_once(lambda ctx: seen.append("read") or ctx.headers["x-tenant"])
    >>> async def call(ctx):
    ...     with remembering(ctx):
    ...         key = await values_of((tenant,), ctx)  # what Cache keys on
    ...         return key, tenant(ctx)                 # what the argument map injects
    >>> anyio.run(call, Context(headers={"x-tenant": "acme"})), seen
    ((['acme'], 'acme'), ['read'])
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from toolweave.core.context import Context

Read = Callable[[Context], Any]
"""A read of the request: `(ctx) -> value` (or an awaitable of it)."""

_KEY = "toolweave.reads"
"""`ctx.state` key of the values computed for this call, by read, while `remembering` is open."""
_MISSING = object()


def read_once(fn: Read) -> Read:
    """`fn`, returning the value already computed for this call when there is one."""

    def read(ctx: Context) -> Any:
        computed = ctx.state.get(_KEY)
        if computed is not None:
            value = computed.get(read, _MISSING)
            if value is not _MISSING:
                return value
        return fn(ctx)

    return read


def remembering(ctx: Context) -> _Remembering:
    """`with remembering(ctx):` keeps the values `values_of` computes for the rest of the call
    (nested uses share them)."""
    return _Remembering(ctx)


class _Remembering:
    """The context manager `remembering` returns (a class: cheaper per call than a generator)."""

    __slots__ = ("_ctx", "_opened")

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._opened = False

    def __enter__(self) -> None:
        state = self._ctx.state
        if _KEY not in state:
            state[_KEY] = {}
            self._opened = True

    def __exit__(self, *exc_info: object) -> None:
        if self._opened:
            del self._ctx.state[_KEY]


async def values_of(reads: tuple[Read, ...], ctx: Context) -> list[Any]:
    """The value of each read for this call, computed now unless already computed (inside `remembering`)."""
    computed: dict[Read, Any] = ctx.state.get(_KEY, {})
    values = []
    for read in reads:
        value = computed.get(read, _MISSING)
        if value is _MISSING:
            value = read(ctx)
            if inspect.isawaitable(value):
                value = await value
            computed[read] = value
        values.append(value)
    return values
