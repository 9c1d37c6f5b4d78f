"""`RateLimit`: a token bucket per caller; over the limit, a clear `Rejected` result.

Each caller key (see `toolweave.middleware.keys`: the verified subject, else the peer address,
by default — never a name the client announces) has a bucket holding up to `burst` tokens, refilled at `rate` tokens per
second. A call takes one token; with none left the call does not run and the client gets an
`isError` result: `Rate limit exceeded for tool 'search': retry in 0.4s` (`Rejected`, with
`retry_after` in seconds). One `RateLimit` is one budget per caller across all the tools it
applies to; `per_tool=True` gives each tool its own. At most `max_keys` buckets are kept (the
least recently used are dropped first; a dropped bucket starts full again).

Example:
    >>> limit = RateLimit(rate=5, burst=10, key="client")
    >>> limit.burst
    10.0
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import anyio

from toolweave.core.errors import Rejected
from toolweave.core.result import ToolResult
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import CallerKey, positive, resolve_key, seconds
from toolweave.telemetry import events


class RateLimit(Middleware):
    """Limit how often each caller may call.

    Args:
        rate: Tokens added per second (the sustained calls per second).
        burst: Bucket size (the most calls in a burst); defaults to `max(1, rate)`.
        key: `"caller"` (default: verified subject, else peer address), `"subject"`, `"peer"`,
            `"client"` (the announced name: any client can claim any), `"global"` or `(ctx) -> str`.
        per_tool: Give every tool its own bucket per caller.
        max_keys: The most buckets kept in memory.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).

    Attributes:
        rejected: How many calls were turned away.
    """

    def __init__(
        self,
        rate: float,
        *,
        burst: float | None = None,
        key: str | CallerKey = "caller",
        per_tool: bool = False,
        max_keys: int = 10_000,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        positive(rate, "RateLimit rate", allow_none=False)
        positive(burst, "RateLimit burst")
        if burst is not None and burst < 1:
            raise ValueError(f"RateLimit burst must be at least 1 (one call), not {burst!r}")
        self.rate = float(rate)
        self.burst = float(burst if burst is not None else max(1.0, rate))
        self.key = resolve_key(key)
        self.per_tool = per_tool
        self.max_keys = max_keys
        self.rejected = 0
        self._buckets: OrderedDict[Any, list[float]] = OrderedDict()

    def take(self, key: Any, now: float) -> float:
        """Take one token from `key`'s bucket: 0.0 if granted, else the seconds until one is free."""
        buckets = self._buckets
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = [self.burst, now]
            if len(buckets) > self.max_keys:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(key)
            bucket[0] = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
            bucket[1] = now
        if bucket[0] >= 1.0:
            bucket[0] -= 1.0
            return 0.0
        return (1.0 - bucket[0]) / self.rate

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        caller = self.key(call.ctx)
        key = (call.tool.name, caller) if self.per_tool else caller
        wait = self.take(key, anyio.current_time())
        if wait:
            self.rejected += 1
            events.rate_limited(call.tool.name, wait)
            message = f"Rate limit exceeded for tool '{call.tool.name}': retry in {seconds(wait)}s"
            raise Rejected(message, retry_after=wait, tool=call.tool.name)
        return await call_next(call)
