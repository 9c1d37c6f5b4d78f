"""`ConcurrencyLimit`: a bulkhead — at most N calls in flight; the rest wait (bounded) or are turned away.

`limit` is one pool shared by every tool the middleware applies to (so `tools="gh_*"` caps a
whole mounted server); `per_tool={glob: n}` gives each matching tool its own pool of `n` instead.
A call that finds its pool full waits up to `wait` seconds for a slot (`None`: as long as it
takes — an outer `Timeout` still bounds it; `0`: not at all), then gets a `Rejected` result:
`Too many concurrent calls of tool 'x' (limit 4)`. Pools are resolved once per tool when the
catalog is compiled; a tool with no limit gets no `ConcurrencyLimit` in its chain.

`shared=True` on a server with a shared store (`Server(store="redis://...")`) counts calls across
every replica: each call holds a lease in the store, renewed while it runs and released when it
ends; a replica that dies holding leases loses them after `lease` seconds. A running call whose
lease the store lost (Redis restarted empty, or was out longer than `lease`) takes it again at
its next renewal, even past the limit, so the calls still running are counted and new ones wait. A call waiting for a
slot looks again every `poll` seconds. When the store is unreachable each process falls back to
its own pool of the same size, in which the calls still running on shared slots count. Without
`shared=True` every process has its own pools.

A pool holds for calls on any event loop of the process (sync code calling one server from a
thread pool, each thread running its own loop): a slot given back goes to the call that has waited
longest on the same loop, else it is free, and calls waiting on another loop find it within
`Slots.RECHECK` seconds (a loop cannot wake another without blocking).

Example:
    >>> bulkhead = ConcurrencyLimit(8, per_tool={"export_*": 1}, wait=5)
    >>> bulkhead.limit_for("export_csv"), bulkhead.limit_for("search")
    (1, 8)
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections import deque
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
        self.slots = Slots(size)
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
        if not self.slots.take_nowait():
            await self._wait_for_slot(call)
        owner.in_flight += 1
        try:
            return await call_next(call)
        finally:
            owner.in_flight -= 1
            self.slots.give()

    async def _wait_for_slot(self, call: ToolCall) -> None:
        wait = self.owner.wait
        if wait is None:
            await self.slots.take()
            return
        if wait > 0:
            with anyio.move_on_after(wait):
                await self.slots.take()
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
        """Run the call holding `holder`'s lease, renewed until it ends, then released.

        It holds a slot of this process's own pool too when one is free (none is when calls let in
        during an outage still run): the pool calls fall back to if Redis goes counts it."""
        owner = self.owner
        owner.in_flight += 1
        local = self.slots.take_nowait()
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
            if local:
                self.slots.give()
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


class Slots:
    """`size` slots taken and given back by calls on any event loop of the process.

    A free slot is an item of a list (`pop` and `append` are atomic, so the path without waiting
    takes no lock); the calls waiting are kept under a thread lock. A slot given back is handed to
    the call that has waited longest on the giver's own loop (first come, first served, as
    `anyio.Semaphore`), else it is free; a call waiting on another loop looks for a free one every
    `RECHECK` seconds once a slot has been given back where no call waited, every `IDLE_RECHECK`
    before (on one loop every slot is handed over: a thousand calls waiting there do not wake
    20,000 times a second for nothing).

    Example:
        >>> slots = Slots(1)
        >>> slots.take_nowait(), slots.take_nowait()
        (True, False)
        >>> slots.give(); slots.take_nowait()
        True
    """

    RECHECK = 0.05
    """Seconds between looks for a slot given back on another thread's event loop."""
    IDLE_RECHECK = 1.0
    """The same until a slot has been given back on a thread where no call waited."""

    def __init__(self, size: int) -> None:
        self._free: list[None] = [None] * size
        self._lock = threading.Lock()
        self._waiting: deque[tuple[int, anyio.Event]] = deque()
        self._crossed = False
        """Whether a slot was given back on a thread while calls waited on others only."""

    def take_nowait(self) -> bool:
        """Take a free slot; whether there was one."""
        try:
            self._free.pop()
        except IndexError:
            return False
        return True

    async def take(self) -> None:
        """Take a slot, waiting for one as long as it takes (cancel the caller to stop waiting)."""
        waiter = (threading.get_ident(), anyio.Event())
        with self._lock:
            if self.take_nowait():
                return
            self._waiting.append(waiter)
        try:
            while True:
                with anyio.move_on_after(self.RECHECK if self._crossed else self.IDLE_RECHECK):
                    await waiter[1].wait()
                with self._lock:
                    if waiter[1].is_set():  # handed over
                        return
                    if self.take_nowait():  # given back on another thread's loop
                        self._waiting.remove(waiter)
                        return
        except BaseException:  # cancelled: a slot handed over meanwhile goes back
            if not self._withdraw(waiter):
                self.give()
            raise

    def give(self) -> None:
        """Give a slot back: to the longest waiting call on this thread's loop, else to the pool."""
        if self._waiting:
            thread = threading.get_ident()
            with self._lock:
                for waiter in self._waiting:
                    if waiter[0] == thread:
                        self._waiting.remove(waiter)
                        waiter[1].set()  # (under the lock: `_withdraw` reads it there)
                        return
                self._crossed = True
        self._free.append(None)

    def _withdraw(self, waiter: tuple[int, anyio.Event]) -> bool:
        """Stop `waiter` waiting; `False` if a slot was handed to it already (it holds one)."""
        with self._lock:
            if waiter[1].is_set():
                return False
            self._waiting.remove(waiter)
            return True
