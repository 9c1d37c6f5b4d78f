"""`RateLimit`: a token bucket per caller; over the limit, a clear `Rejected` result.

Each caller key (see `toolweave.middleware.keys`: the verified subject, else the peer address,
by default — never a name the client announces) has a bucket holding up to `burst` tokens, refilled at `rate` tokens per
second. A call takes one token; with none left the call does not run and the client gets an
`isError` result: `Rate limit exceeded for tool 'search': retry in 0.4s` (`Rejected`, with
`retry_after` in seconds). One `RateLimit` is one budget per caller across all the tools it
applies to; `per_tool=True` gives each tool its own. At most `max_keys` buckets are kept (the
least recently used are dropped first; a dropped bucket starts full again).

On a server with a shared store (`Server(store="redis://...")`) the buckets live there: one
bucket per caller key across every replica, taken atomically (a Lua script), so `burst` allowed
means `burst` in total; a bucket left alone until it is full again expires (no `max_keys`).
When the store is unreachable, `on_store_error` decides: `"local"` (default: each process falls
back to its own buckets), `"allow"` (fail open) or `"reject"` (fail closed: the call gets
`Rejected`).

Example:
    >>> limit = RateLimit(rate=5, burst=10, key="client")
    >>> limit.burst
    10.0
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Literal

import anyio

from toolweave.core.errors import Rejected
from toolweave.core.result import ToolResult
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import CallerKey, positive, resolve_key, seconds
from toolweave.store.base import SharedRateLimiter, StoreUnavailable
from toolweave.telemetry import events

if TYPE_CHECKING:
    from toolweave.store.base import Store

OnStoreError = Literal["local", "allow", "reject"]


class RateLimit(Middleware):
    """Limit how often each caller may call.

    Args:
        rate: Tokens added per second (the sustained calls per second).
        burst: Bucket size (the most calls in a burst); defaults to `max(1, rate)`.
        key: `"caller"` (default: verified subject, else peer address), `"subject"`, `"peer"`,
            `"client"` (the announced name: any client can claim any), `"global"` or `(ctx) -> str`.
        per_tool: Give every tool its own bucket per caller.
        max_keys: The most buckets kept in memory.
        on_store_error: With a shared store that is unreachable: `"local"` (this process's own
            buckets), `"allow"` (fail open) or `"reject"` (fail closed).
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
        on_store_error: OnStoreError = "local",
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        positive(rate, "RateLimit rate", allow_none=False)
        positive(burst, "RateLimit burst")
        if burst is not None and burst < 1:
            raise ValueError(f"RateLimit burst must be at least 1 (one call), not {burst!r}")
        if isinstance(max_keys, bool) or not isinstance(max_keys, int) or max_keys < 1:
            raise ValueError(f"RateLimit max_keys must be a whole number of buckets >= 1, not {max_keys!r}")
        if on_store_error not in ("local", "allow", "reject"):
            raise ValueError(f"RateLimit on_store_error must be 'local', 'allow' or 'reject', not {on_store_error!r}")
        self.on_store_error: OnStoreError = on_store_error
        self.rate = float(rate)
        self.burst = float(burst if burst is not None else max(1.0, rate))
        self.key = resolve_key(key)
        self.per_tool = per_tool
        self.max_keys = max_keys
        self.rejected = 0
        self._buckets: OrderedDict[Any, list[float]] = OrderedDict()
        self._shared: SharedRateLimiter | None = None

    def use_store(self, store: Store, scope: str) -> None:
        """Keep the buckets in `store` when it is shared."""
        self._shared = store.rate_limiter(scope, rate=self.rate, burst=self.burst)

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
        if self._shared is None:
            wait = self.take(key, anyio.current_time())
        else:
            wait = await self._take_shared(self._shared, call, key)
        if wait:
            self.rejected += 1
            events.rate_limited(call.tool, call.ctx, wait)
            message = f"Rate limit exceeded for tool '{call.tool.name}': retry in {seconds(wait)}s"
            raise Rejected(message, retry_after=wait, tool=call.tool.name)
        return await call_next(call)

    async def _take_shared(self, shared: SharedRateLimiter, call: ToolCall, key: Any) -> float:
        """Take from the shared bucket; on an outage, apply `on_store_error`."""
        try:
            return await shared.take(f"tool:{key[0]}:{key[1]}" if self.per_tool else key)
        except StoreUnavailable:
            if self.on_store_error == "local":
                return self.take(key, anyio.current_time())
            if self.on_store_error == "allow":
                return 0.0
            self.rejected += 1
            name = call.tool.name
            message = f"Rate limit for tool '{name}' cannot be checked right now; try again later"
            raise Rejected(message, tool=name) from None
