"""`fold`: how every chain is built, once — tools, prompts and resources alike.

A chain is a list of *layers* folded around the innermost handler: **the first layer ends up
outermost**. A layer is given the rest of the chain (`call_next`) and returns its own step, once,
when the chain is built. A tool's layers are its middleware's `bind_tool` (where a built-in may
return a step specialised for the tool); a prompt's or a resource's are its middleware's hooks
(`on_get_prompt`, `on_read_resource`), each made a layer by `as_layer`. Each step is a plain
function handing back the hook's awaitable, so a layer adds no coroutine frame of its own, and
the fold itself is nothing at call time: a call goes straight into the outermost step.

Example:
    >>> import anyio
    >>> async def inner(request): return [request]
    >>> async def tag(request, call_next): return ["outer", *await call_next(request)]
    >>> anyio.run(fold([as_layer(tag)], inner), "call")
    ['outer', 'call']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Hook = Callable[[T, Any], Awaitable[R]]
"""`hook(request, call_next)`: one middleware's part of a call."""


def fold(
    layers: Sequence[Callable[[Callable[[T], Awaitable[R]]], Callable[[T], Awaitable[R]]]],
    inner: Callable[[T], Awaitable[R]],
) -> Callable[[T], Awaitable[R]]:
    """`inner` wrapped in `layers` (each `call_next -> step`): `layers[0]` outermost."""
    handler = inner
    for layer in reversed(layers):
        handler = layer(handler)
    return handler


def as_layer(
    hook: Callable[[T, Any], Awaitable[R]],
) -> Callable[[Callable[[T], Awaitable[R]]], Callable[[T], Awaitable[R]]]:
    """`hook(request, call_next)` as a layer of `fold`: its step is `bind(hook, call_next)`."""
    return partial(bind, hook)


def bind(hook: Callable[[T, Any], Awaitable[R]], call_next: Callable[[T], Awaitable[R]]) -> Callable[[T], Awaitable[R]]:
    """One step of a chain: `hook` with the rest of the chain bound as its `call_next`."""

    def step(request: T) -> Awaitable[R]:
        return hook(request, call_next)

    return step
