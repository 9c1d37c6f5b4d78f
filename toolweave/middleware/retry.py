"""`Retry`: run a failed call again, with exponential backoff and jitter — only where that is safe.

Which tools: by default only tools annotated idempotent or read-only (`idempotentHint` /
`readOnlyHint`); any other tool gets no `Retry` in its chain at all. `only_safe=False` lifts
that (for tools you know are safe to repeat but are not annotated).

What is retried: an exception from the rest of the chain that is an instance of `retry_on`
(default: any `Exception`), except:

- a `ToolError` — it is the tool's answer, not a failure: `InvalidArguments`, `Rejected` (rate
  limit, open circuit), `ToolTimeout` and plain `ToolError` are never retried;
- `UpstreamError` (a mounted remote server failed or went away) *is* retried by default, because
  for idempotent tools a transient upstream failure is exactly what retries are for; pass
  `retry_upstream=False` to stop that;
- cancellation is never retried (it is not an `Exception`), and an `isError` result is an answer,
  so it is returned as is.

Backoff: attempt `n` (1-based) waits `backoff * 2**(n-1)` seconds, capped at `max_backoff`,
scaled by a random factor in `[1 - jitter, 1]`. A retry that would wait past `ctx.deadline` is
not made: the last error is raised instead.

Example:
    >>> retry = Retry(attempts=3, backoff=0.1, jitter=0.5)
    >>> [retry.delay(n, rand=1.0) for n in (1, 2)]
    [0.1, 0.2]
"""

from __future__ import annotations

import copy
import random
from typing import Any

import anyio

from toolweave.core.errors import PROTOCOL_ANSWERS, ToolError, UpstreamError
from toolweave.core.result import ToolResult
from toolweave.core.shareable import shareable
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import positive
from toolweave.telemetry import events


def is_safe_to_repeat(tool: Tool) -> bool:
    """Whether `tool` is annotated idempotent or read-only."""
    hints = tool.annotations
    return hints is not None and bool(hints.idempotent_hint or hints.read_only_hint)


class Retry(Middleware):
    """Retry failed calls of tools that are safe to repeat.

    Args:
        attempts: Total attempts, the first included (`3` = up to two retries).
        backoff: The wait before the first retry, in seconds; doubles each time.
        max_backoff: The longest wait between attempts.
        jitter: How much of each wait is randomised (0 = none, 1 = anywhere from 0 to the wait).
        retry_on: Exception types worth retrying (default `Exception`; `ToolError` never is).
        retry_upstream: Retry `UpstreamError` (default yes, see the module docs).
        only_safe: Only tools annotated idempotent or read-only (default yes).
        tools: Which tools this applies to (selector, glob, list of globs, predicate).

    Attributes:
        retries: How many retries were made in total.
    """

    def __init__(
        self,
        attempts: int = 3,
        *,
        backoff: float = 0.1,
        max_backoff: float = 5.0,
        jitter: float = 0.5,
        retry_on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
        retry_upstream: bool = True,
        only_safe: bool = True,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise ValueError(f"Retry attempts must be an integer >= 1, not {attempts!r}")
        positive(backoff, "Retry backoff", allow_none=False, allow_zero=True)
        positive(max_backoff, "Retry max_backoff", allow_none=False, allow_zero=True)
        if isinstance(jitter, bool) or not isinstance(jitter, int | float) or not 0 <= jitter <= 1:
            raise ValueError(f"Retry jitter must be a number between 0 and 1, not {jitter!r}")
        errors = retry_on if isinstance(retry_on, tuple) else (retry_on,)
        if not errors or not all(isinstance(kind, type) and issubclass(kind, BaseException) for kind in errors):
            raise TypeError(f"Retry retry_on takes an exception class or a tuple of them, not {retry_on!r}")
        self.attempts = attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.jitter = jitter
        self.retry_on = retry_on
        self.retry_upstream = retry_upstream
        self.only_safe = only_safe
        self.retries = 0

    def for_tool(self, tool: Tool) -> Middleware | None:
        """`self` for selected tools that are safe to repeat (or all selected, with `only_safe=False`)."""
        if self.attempts == 1 or not self.applies_to(tool):
            return None
        return self if not self.only_safe or is_safe_to_repeat(tool) else None

    def delay(self, attempt: int, *, rand: float | None = None) -> float:
        """The wait after failed attempt `attempt` (1-based); `rand` in [0, 1] fixes the jitter."""
        base = min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1))
        factor = 1.0 - self.jitter * (1.0 - (random.random() if rand is None else rand))
        return base * factor

    def should_retry(self, error: Exception) -> bool:
        """Whether `error` is worth another attempt."""
        if isinstance(error, ToolError) and not (self.retry_upstream and isinstance(error, UpstreamError)):
            return False
        if isinstance(error, PROTOCOL_ANSWERS):  # the client is asked for something: not a failure
            return False
        return isinstance(error, self.retry_on)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        attempt = 1
        # an attempt that changed a list or dict it was given must not hand the change to the next
        kept = None if all(map(shareable, call.arguments.values())) else copy.deepcopy(call.arguments)
        while True:
            try:
                sent = call if attempt == 1 or kept is None else call.replace(arguments=copy.deepcopy(kept))
                return await call_next(sent)
            except Exception as error:
                if attempt >= self.attempts or not self.should_retry(error):
                    raise
                wait = self.delay(attempt)
                deadline = call.ctx.deadline
                if deadline is not None and anyio.current_time() + wait >= deadline:
                    raise
                events.retrying(call.tool, call.ctx, attempt, error, wait)
            self.retries += 1
            attempt += 1
            await anyio.sleep(wait)
