"""`ConcurrencyLimit`: a bulkhead — at most N calls in flight; the rest wait (bounded) or are turned away.

`limit` is one pool shared by every tool the middleware applies to (so `tools="gh_*"` caps a
whole mounted server); `per_tool={glob: n}` gives each matching tool its own pool of `n` instead.
A call that finds its pool full waits up to `wait` seconds for a slot (`None`: as long as it
takes — an outer `Timeout` still bounds it; `0`: not at all), then gets a `Rejected` result:
`Too many concurrent calls of tool 'x' (limit 4)`. Pools are resolved once per tool when the
catalog is compiled; a tool with no limit gets no `ConcurrencyLimit` in its chain.

Example:
    >>> bulkhead = ConcurrencyLimit(8, per_tool={"export_*": 1}, wait=5)
    >>> bulkhead.limit_for("export_csv"), bulkhead.limit_for("search")
    (1, 8)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from toolweave.core.errors import Rejected
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import per_tool_value, positive


def _check_limit(value: int | None, what: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{what} must be an integer >= 1, not {value!r}")


class ConcurrencyLimit(Middleware):
    """Cap the number of calls running at once.

    Args:
        limit: Calls in flight at once across all selected tools; `None` = only `per_tool` limits.
        per_tool: `{glob: n}`: a matching tool gets its own pool of `n` (first matching glob wins).
        wait: Seconds a call may wait for a slot before it is rejected; `None` = no bound, `0` = none.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).

    Attributes:
        in_flight: Calls currently holding a slot (all pools).
        rejected: How many calls were turned away.
    """

    def __init__(
        self,
        limit: int | None = None,
        *,
        per_tool: Mapping[str, int] | None = None,
        wait: float | None = 10.0,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        _check_limit(limit, "ConcurrencyLimit limit")
        for pattern, value in (per_tool or {}).items():
            _check_limit(value, f"ConcurrencyLimit per_tool[{pattern!r}]")
        if limit is None and not per_tool:
            raise ValueError("ConcurrencyLimit needs a limit, per_tool limits, or both")
        positive(wait, "ConcurrencyLimit wait", allow_zero=True)
        self.limit = limit
        self.per_tool = dict(per_tool or {})
        self.wait = wait
        self.in_flight = 0
        self.rejected = 0
        self._pools: dict[str | None, Bulkhead] = {}  # kept across recompiles: in-flight calls hold slots

    def limit_for(self, name: str) -> int | None:
        """The pool size that applies to the tool exposed as `name`."""
        return per_tool_value(self.per_tool, name, self.limit)

    def for_tool(self, tool: Tool) -> Middleware | None:
        """The pool this tool draws from: its own (`per_tool`), the shared one, or none."""
        if not self.applies_to(tool):
            return None
        own = per_tool_value(self.per_tool, tool.name, None)
        key, size = (tool.name, own) if own is not None else (None, self.limit)
        if size is None:
            return None
        pool = self._pools.get(key)
        if pool is None or pool.size != size:
            pool = self._pools[key] = Bulkhead(self, size)
        return pool

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Outside a compiled chain: use the pool `for_tool` would choose."""
        bulkhead = self.for_tool(call.tool)
        if bulkhead is None:
            return await call_next(call)
        return await bulkhead.on_call_tool(call, call_next)


class Bulkhead(Middleware):
    """One pool of slots of a `ConcurrencyLimit` (what a compiled chain holds)."""

    def __init__(self, owner: ConcurrencyLimit, size: int) -> None:
        self.owner = owner
        self.size = size
        self.tools = owner.tools
        self.slots = anyio.Semaphore(size)

    @property
    def name(self) -> str:
        return f"ConcurrencyLimit({self.size})"

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        owner = self.owner
        try:
            self.slots.acquire_nowait()
        except anyio.WouldBlock:
            await self._wait_for_slot(call)
        owner.in_flight += 1
        try:
            return await call_next(call)
        finally:
            owner.in_flight -= 1
            self.slots.release()

    async def _wait_for_slot(self, call: ToolCall) -> None:
        wait = self.owner.wait
        if wait is None:
            await self.slots.acquire()
            return
        if wait > 0:
            with anyio.move_on_after(wait):
                await self.slots.acquire()
                return
        self.owner.rejected += 1
        raise Rejected(
            f"Too many concurrent calls of tool '{call.tool.name}' (limit {self.size}); try again later",
            tool=call.tool.name,
        )
