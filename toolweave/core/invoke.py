"""Call a user function with validated arguments and the request `Context`, sync or async.

Prompts and resources made from functions share this: an async function is awaited on the
loop; a sync one runs in a worker thread (`toolweave.core.threads`) unless told to run inline.

Example:
    >>> import anyio
    >>> def double(n: int) -> int:
    ...     return 2 * n
    >>> call = make_invoker(double, context_param=None)
    >>> anyio.run(call, {"n": 21}, Context())
    42
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from toolweave.core.context import Context
from toolweave.core.function_tool import _is_async
from toolweave.core.threads import run_in_worker

Invoker = Callable[[dict[str, Any], Context], Awaitable[Any]]
"""`async (arguments, ctx) -> the function's return value`."""


def make_invoker(fn: Callable[..., Any], context_param: str | None, *, run_in_thread: bool = True) -> Invoker:
    """An awaitable call of `fn` that passes `ctx` into `context_param` (when there is one)."""
    if _is_async(fn):

        async def call_async(arguments: dict[str, Any], ctx: Context) -> Any:
            if context_param is not None:
                arguments = {**arguments, context_param: ctx}
            return await fn(**arguments)

        return call_async

    if not run_in_thread:

        async def call_inline(arguments: dict[str, Any], ctx: Context) -> Any:
            if context_param is not None:
                arguments = {**arguments, context_param: ctx}
            return fn(**arguments)

        return call_inline

    async def call_in_worker(arguments: dict[str, Any], ctx: Context) -> Any:
        if context_param is not None:
            arguments = {**arguments, context_param: ctx}
        return await run_in_worker(fn, arguments, ctx)

    return call_in_worker
