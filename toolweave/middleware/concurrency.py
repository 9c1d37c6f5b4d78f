"""`ConcurrencyLimit`: a bulkhead — at most N calls in flight; the rest wait (bounded) or are turned away.

`limit` is one pool shared by every tool the middleware applies to (so `tools="gh_*"` caps a
whole mounted server); `per_tool={glob: n}` gives each matching tool its own pool of `n` instead.
A call that finds its pool full waits up to `wait` seconds for a slot (`None`: as long as it
takes — an outer `Timeout` still bounds it; `0`: not at all), then gets a `Rejected` result:
`Too many concurrent calls of tool 'x' (limit 4)`. Pools are resolved once per tool when the
catalog is compiled; a tool with no limit gets no `ConcurrencyLimit` in its chain.

`shared=True` on a server with a shared store (`Server(store="redis://...")`) counts calls across
every replica: each call holds a lease in the store, renewed while it runs and released when it
ends; a replica that dies holding leases loses them after `lease` seconds. A call waiting for a
slot looks again every `poll` seconds. When the store is unreachable each process falls back to
its own pool of the same size. Without `shared=True` every process has its own pools.

Example:
    >>> bulkhead = ConcurrencyLimit(8, per_tool={"export_*": 1}, wait=5)
    >>> bulkhead.limit_for("export_csv"), bulkhead.limit_for("search")
    (1, 8)
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio

from toolweave.core.errors import Rejected
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import per_tool_value, positive
from toolweave.store.base import SharedLeases, StoreUnavailable

if TYPE_CHECKING:
    from toolweave.store.base import Store


def _check_limit(value: int | None, what: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{what} must be an integer >= 1, not {value!r}")


class ConcurrencyLimit(Middleware):
    """Cap the number of calls running at once.

    Args:
        limit: Calls in flight at once across all selected tools; `None` = only `per_tool` limits.
        per_tool: `{glob: n}`: a matching tool gets its own pool of `n` (first matching glob wins).
        wait: Seconds a call may wait for a slot before it is rejected; `None` = no bound, `0` = none.
        shared: Count calls across every replica sharing the server's store (leases in the store).
        lease: Seconds a shared slot outlives a replica that died holding it.
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
        shared: bool = False,
        lease: float = 30.0,
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
        positive(lease, "ConcurrencyLimit lease", allow_none=False)
        self.wait = wait
        self.shared = shared
        self.lease = lease
        self.poll = 0.05
        self._store: Store | None = None
        self._scope = ""
        self.in_flight = 0
        self.rejected = 0
        self._pools: dict[str | None, Bulkhead] = {}  # kept across recompiles: in-flight calls hold slots

    def use_store(self, store: Store, scope: str) -> None:
        """With `shared=True`, count calls in `store` when it is shared."""
        self._store, self._scope = store, scope
        self._pools.clear()

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
            pool = self._pools[key] = Bulkhead(self, size, self._leases(key, size))
        return pool

    def _leases(self, pool: str | None, size: int) -> SharedLeases | None:
        if not self.shared or self._store is None:
            return None
        scope = f"{self._scope}:{pool}" if pool is not None else self._scope
        return self._store.leases(scope, size=size, lease=self.lease)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Outside a compiled chain: use the pool `for_tool` would choose."""
        bulkhead = self.for_tool(call.tool)
        if bulkhead is None:
            return await call_next(call)
        return await bulkhead.on_call_tool(call, call_next)


class Bulkhead(Middleware):
    """One pool of slots of a `ConcurrencyLimit` (what a compiled chain holds)."""

    def __init__(self, owner: ConcurrencyLimit, size: int, leases: SharedLeases | None = None) -> None:
        self.owner = owner
        self.size = size
        self.tools = owner.tools
        self.slots = anyio.Semaphore(size)
        self.leases = leases

    @property
    def name(self) -> str:
        return f"ConcurrencyLimit({self.size})"

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        if self.leases is not None:
            holder = secrets.token_hex(8)
            try:
                await self._lease(self.leases, holder, call)
            except StoreUnavailable:  # the outage story: this process's own pool
                pass
            else:
                return await self._leased(self.leases, holder, call, call_next)
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
        raise self._rejected(call)

    def _rejected(self, call: ToolCall) -> Rejected:
        self.owner.rejected += 1
        return Rejected(
            f"Too many concurrent calls of tool '{call.tool.name}' (limit {self.size}); try again later",
            tool=call.tool.name,
        )

    async def _lease(self, leases: SharedLeases, holder: str, call: ToolCall) -> None:
        """Take a shared lease, waiting up to `wait` seconds; `Rejected` if none came free."""
        wait = self.owner.wait
        if await leases.acquire(holder):
            return
        if wait != 0:
            with anyio.move_on_after(wait if wait is not None else float("inf")):
                while not await leases.acquire(holder):  # noqa: ASYNC110 - another process frees it
                    await anyio.sleep(self.owner.poll)
                return
        raise self._rejected(call)

    async def _leased(self, leases: SharedLeases, holder: str, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Run the call holding `holder`'s lease, renewed until it ends, then released."""
        owner = self.owner
        owner.in_flight += 1
        error: Exception | None = None
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_renew, leases, holder)
                try:
                    result = await call_next(call)
                except Exception as raised:  # re-raised below, outside the task group, unwrapped
                    error = raised
                tasks.cancel_scope.cancel()
        finally:
            owner.in_flight -= 1
            with anyio.CancelScope(shield=True), contextlib.suppress(StoreUnavailable):
                await leases.release(holder)
        if error is not None:
            raise error
        return result


async def _renew(leases: SharedLeases, holder: str) -> None:
    """Keep `holder`'s lease alive (a renewal missed during an outage is tried again)."""
    while True:
        await anyio.sleep(leases.lease / 3)
        with contextlib.suppress(StoreUnavailable):
            await leases.renew(holder)
