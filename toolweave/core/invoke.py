"""Call a user function with validated arguments and the request `Context`, sync or async.

Tools, prompts and resources made from functions share this one invoker: an async function is
awaited on the loop; a sync one runs in a worker thread (`toolweave.core.threads`, which bounds
the threads sync code may hold) unless told to run inline. `convert` turns the return value into
what the caller needs (a tool's `ToolResult`), inside the same coroutine.

A generator function, sync or async, is run to its end and what it yielded is the return value,
as a list: `yield` reads as "one more item of the result" (a tool's list of items, a prompt's
list of messages), never as a stream (MCP sends one result per call). A sync generator runs
where a sync function would (a worker thread), so its body never blocks the loop.

A sync callable that returns a coroutine (`lambda q: search(q)` around an async `search`) has
it awaited on the loop, as an async function's would be; a decorator's kind decides over the
function it wraps when it is itself async or a generator (an async wrapper of a sync function
is awaited).

Example:
    >>> import anyio
    >>> def double(n: int) -> int:
    ...     return 2 * n
    >>> call = make_invoker(double, context_param=None)
    >>> anyio.run(call, {"n": 21}, Context())
    42
    >>> async def count(n: int):
    ...     for i in range(n):
    ...         yield i
    >>> anyio.run(make_invoker(count, context_param=None), {"n": 3}, Context())
    [0, 1, 2]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from toolweave.core.context import Context
from toolweave.core.reading import described, target
from toolweave.core.threads import run_in_worker

Invoker = Callable[[dict[str, Any], Context], Awaitable[Any]]
"""`async (arguments, ctx) -> the function's return value` (converted, when `convert` is given)."""


def _code_of(fn: Callable[..., Any]) -> Any:
    """The function whose kind (async, generator or plain) decides how `fn` is called, through
    callable objects and partials: `fn`'s own unless that is a plain function, whose wrapped one
    decides (a sync wrapper that `functools.wraps` an async function returns its coroutine; an
    async wrapper of a sync function is awaited, its body runs on the loop)."""
    called = described(target(fn))
    if inspect.iscoroutinefunction(called) or inspect.isasyncgenfunction(called) or inspect.isgeneratorfunction(called):
        return called
    return described(inspect.unwrap(called))


def is_async_callable(fn: Callable[..., Any]) -> bool:
    """Whether calling `fn` returns a coroutine (async functions, partials and callable objects of them).

    Example:
        >>> async def fetch() -> None: ...
        >>> is_async_callable(functools.partial(fetch)), is_async_callable(len)
        (True, False)
    """
    return inspect.iscoroutinefunction(_code_of(fn))


def _collecting(fn: Callable[..., Any]) -> Callable[..., list[Any]]:
    """`fn`, a sync generator function, run to its end: what it yielded, as a list."""

    @functools.wraps(fn)
    def collect(**arguments: Any) -> list[Any]:
        return list(fn(**arguments))

    return collect


def _unchanged(value: Any) -> Any:
    return value


def make_invoker(
    fn: Callable[..., Any],
    context_param: str | None,
    *,
    run_in_thread: bool = True,
    convert: Callable[[Any], Any] = _unchanged,
) -> Invoker:
    """An awaitable call of `fn` that passes `ctx` into `context_param` (when there is one) and
    returns `convert(return value)`; a generator function's return value is the list of what it yielded."""
    code = _code_of(fn)
    if inspect.isasyncgenfunction(code):

        async def call_async_generator(arguments: dict[str, Any], ctx: Context) -> Any:
            if context_param is not None:
                arguments = {**arguments, context_param: ctx}
            return convert([item async for item in fn(**arguments)])

        return call_async_generator

    if inspect.isgeneratorfunction(code):
        fn = _collecting(fn)
    if inspect.iscoroutinefunction(code):

        async def call_async(arguments: dict[str, Any], ctx: Context) -> Any:
            if context_param is not None:
                arguments = {**arguments, context_param: ctx}
            return convert(await fn(**arguments))

        return call_async

    if not run_in_thread:

        async def call_inline(arguments: dict[str, Any], ctx: Context) -> Any:
            if context_param is not None:
                arguments = {**arguments, context_param: ctx}
            value = fn(**arguments)
            if inspect.iscoroutine(value):  # (a sync callable returning one: `lambda q: search(q)`)
                value = await value
            return convert(value)

        return call_inline

    return _InWorker(fn, context_param, convert)


class _InWorker:
    """A sync function's invoker (a slotted object: thousands of sync tools hold one each)."""

    __slots__ = ("context_param", "convert", "fn")

    def __init__(self, fn: Callable[..., Any], context_param: str | None, convert: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.context_param = context_param
        self.convert = convert

    async def __call__(self, arguments: dict[str, Any], ctx: Context) -> Any:
        if self.context_param is not None:
            arguments = {**arguments, self.context_param: ctx}
        value = await run_in_worker(self.fn, arguments, ctx)
        if inspect.iscoroutine(value):  # (a sync callable returning one: `lambda q: search(q)`)
            value = await value
        return self.convert(value)
