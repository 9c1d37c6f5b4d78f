"""`fold`: how every chain is built, once — tools, prompts and resources alike.

A chain is a list of hooks `hook(request, call_next)` folded around the innermost handler:
**the first hook ends up outermost**. Each step is a plain function handing back the hook's
awaitable, so a layer adds no coroutine frame of its own.

Example:
    >>> import anyio
    >>> async def inner(request): return [request]
    >>> async def tag(request, call_next): return ["outer", *await call_next(request)]
    >>> anyio.run(fold([tag], inner), "call")
    ['outer', 'call']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Hook = Callable[[T, Any], Awaitable[R]]


def fold(
    hooks: Sequence[Callable[[T, Any], Awaitable[R]]], inner: Callable[[T], Awaitable[R]]
) -> Callable[[T], Awaitable[R]]:
    """`inner` wrapped in `hooks`: `hooks[0]` outermost."""
    handler = inner
    for hook in reversed(hooks):
        handler = bind(hook, handler)
    return handler


def bind(
    hook: Callable[[T, Any], Awaitable[R]], call_next: Callable[[T], Awaitable[R]]
) -> Callable[[T], Awaitable[R]]:
    """One step of a chain: `hook` with the rest of the chain bound as its `call_next`."""

    def step(request: T) -> Awaitable[R]:
        return hook(request, call_next)

    return step
