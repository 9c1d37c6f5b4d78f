"""`Cache`: reuse recent results of read-only, idempotent tools.

By default only tools annotated both read-only and idempotent (`readOnlyHint` and
`idempotentHint`) are cached; every other tool gets no `Cache` in its chain. `only_safe=False`
caches every selected tool (use with a `tools=` selector you trust).

An entry is keyed by the tool (as registered now: a tool replaced under its name, or another
server's tool of the same name sharing one `Cache`, starts afresh), the canonical form of the
validated arguments (JSON with sorted keys, so `{"a": 1, "b": 2}` and `{"b": 2, "a": 1}` share an
entry), the caller (see `toolweave.middleware.keys`: the verified subject, else the peer address;
one caller never sees another's cached result unless `key="global"` says they may) and the values
injected into the call from the request (an `InjectArgs(tenant=FromHeader("x-tenant"))` keys
entries per tenant; a digest of them, never the values). Those values are read once per call, here,
and the tool gets exactly them (`toolweave.core.reads`). A tool whose injected value is a function
of the request cannot be keyed and is never cached. An entry lives `ttl` seconds; at most
`max_entries` are kept (least recently used dropped first). Errors are never cached: neither an
`isError` result nor an exception; nor is a round answering the tool's questions
(`ctx.input_responses`: the answers are not part of the key); nor a result that came back after
the call's deadline (a `Timeout` outside discards it and the client gets a timeout: a tool that
ignored the cancellation may have cut its work short, so it is nobody's answer, not even the
waiting callers'). Cached results are shared objects — a
middleware outside `Cache` must not mutate a result in place.

Concurrent misses for one key make one call (single flight): the first caller runs the tool, the
others wait for its result. If it raised or was cancelled, one of them leads in its place (a
transient failure costs one more call); if that second try raises too, the others all run their
own call at once, uncached, rather than each in turn (the last of them waited for every failure
before it). On a server with
a shared store (`Server(store="redis://...")`) entries live there, shared by every replica under
`{namespace}:cache:{server}:{position}:{tool}:{digest}`, with the same TTL; results larger than
the store's `max_value_bytes` are not stored, and one replica computes a missing entry while
the others wait for it (if it ends without one, they all compute it at once). When the store is
unreachable the cache is skipped: calls go upstream.

Example:
    >>> cache = Cache(ttl=30, max_entries=500)
    >>> cache.canonical({"b": 2, "a": [1, "x"]})
    '{"a":[1,"x"],"b":2}'
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import TypeAdapter
from pydantic_core import to_jsonable_python

from toolweave.core.context import Context
from toolweave.core.deadlines import past
from toolweave.core.errors import ToolweaveError
from toolweave.core.reads import Read, remembering, values_of
from toolweave.core.result import ToolResult
from toolweave.core.tool import Run, Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import CallerKey, positive, resolve_key
from toolweave.store.base import SharedCache, StoreUnavailable

if TYPE_CHECKING:
    from toolweave.store.base import Store

Key = tuple[int, str, str, str, str]
"""An entry's key: the identity of the tool's `run` (the tool as registered now: one removed and
added again under its name, or another server's tool of that name sharing this `Cache`, never gets
its entries; the entry keeps that `run` alive, so the identity is not reused meanwhile), its name,
the canonical arguments, the caller, the digest of the injected request values."""


@functools.cache
def _results() -> TypeAdapter[ToolResult]:
    """Results to and from JSON for a shared store (built on first use, not at import: ~16 ms)."""
    return TypeAdapter(ToolResult)


class Flight:
    """One call in progress for a key; the callers that missed meanwhile wait for its result."""

    __slots__ = ("done", "failed", "result", "second")

    def __init__(self, *, second: bool = False) -> None:
        self.done = anyio.Event()
        self.result: ToolResult | None = None
        self.failed = False
        """Whether the call raised."""
        self.second = second
        """Whether it is the second try, after a call that raised: if it raises too, the callers
        waiting run their own at once instead of each in turn."""


async def _digest(reads: tuple[Read, ...], ctx: Context) -> str:
    """A digest of the request values injected into the call ("" when there are none); the values
    are remembered for the call, so the tool gets them without reading them again."""
    if not reads:
        return ""
    values = Cache.canonical(await values_of(reads, ctx))
    return hashlib.blake2b(values.encode(), digest_size=16).hexdigest()


def is_cacheable(tool: Tool) -> bool:
    """Whether `tool` is annotated both read-only and idempotent."""
    hints = tool.annotations
    return hints is not None and bool(hints.read_only_hint) and bool(hints.idempotent_hint)


class Cache(Middleware):
    """Cache successful results per tool, arguments and caller.

    Args:
        ttl: Seconds a result stays fresh.
        max_entries: The most results kept.
        key: How callers are told apart: `"caller"` (default: verified subject, else peer
            address), `"subject"`, `"peer"`, `"client"` (the name a client announces: any client
            can claim any name), `"global"` (share results between callers) or a function
            `(ctx) -> str`.
        only_safe: Only tools annotated read-only and idempotent (default yes).
        tools: Which tools this applies to (selector, glob, list of globs, predicate).

    Attributes:
        hits / misses: Lookups answered from the cache / passed on.
    """

    def __init__(
        self,
        ttl: float = 60.0,
        *,
        max_entries: int = 1000,
        key: str | CallerKey = "caller",
        only_safe: bool = True,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        positive(ttl, "Cache ttl", allow_none=False)
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"Cache max_entries must be an integer >= 1, not {max_entries!r}")
        self.ttl = ttl
        self.max_entries = max_entries
        self.key = resolve_key(key)
        self.only_safe = only_safe
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[Key, tuple[float, ToolResult, Run]] = OrderedDict()
        self._flights: dict[tuple[int, Key], Flight] = {}
        """The calls in progress, by the thread of their event loop and key (see `_once`)."""
        self._shared: SharedCache | None = None

    lead_for = 30.0
    """Seconds one replica may hold the computation of a shared entry before another takes over."""

    poll = 0.02
    """Seconds between looks for an entry another replica is computing."""

    def use_store(self, store: Store, scope: str) -> None:
        """Keep the entries in `store` when it is shared."""
        self._shared = store.cache(scope, ttl=self.ttl)

    def for_tool(self, tool: Tool) -> Middleware | None:
        """`self` for selected tools that may be cached (and whose per-call inputs can be keyed)."""
        if not self.applies_to(tool) or tool.varies_with is None:
            return None
        return self if not self.only_safe or is_cacheable(tool) else None

    @staticmethod
    def canonical(arguments: Any) -> str:
        """The arguments as compact JSON with sorted keys."""
        return json.dumps(
            arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=to_jsonable_python
        )

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        tool, ctx = call.tool, call.ctx
        # outside a compiled chain on a tool it cannot key, or a round answering the tool's
        # questions (the answers are not in the key): not cached
        if tool.varies_with is None or ctx.input_responses:
            return await call_next(call)
        with remembering(ctx):  # the injected values keyed on are the ones the tool gets
            try:
                key = (
                    id(tool.run),
                    tool.name,
                    self.canonical(call.arguments),
                    self.key(ctx),
                    await _digest(tool.varies_with, ctx),
                )
            except (TypeError, ValueError, ToolweaveError):  # no canonical form, or an input missing: not cached
                return await call_next(call)
            found = self._entries.get(key)
            if found is not None:
                if found[0] > anyio.current_time():
                    self.hits += 1
                    self._entries.move_to_end(key)
                    return found[1]
                self._entries.pop(key, None)  # (a call on another thread's loop may have dropped it)
            return await self._once(key, call, call_next)

    async def _once(self, key: Key, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Run the call unless another one for `key` is in progress; then share its result.

        Only calls on one event loop share a flight (its `done` answers on that loop alone): calls
        from threads each running a loop of their own run their own for the same key.
        """
        on_loop = (threading.get_ident(), key)
        second = False
        while (flight := self._flights.get(on_loop)) is not None:
            await flight.done.wait()
            if flight.result is not None:
                self.hits += 1
                return flight.result
            if flight.failed and flight.second:  # failing still: not one caller after another
                self.misses += 1
                return await call_next(call)
            second = flight.failed
        flight = self._flights[on_loop] = Flight(second=second)
        try:
            shared = self._shared
            if shared is None:
                result = await self._fill(key, call, call_next)
            else:
                result = await self._fill_shared(shared, key, call, call_next)
            if not past(call.ctx.deadline):  # a late result is discarded by the `Timeout` outside
                flight.result = result
            return result
        except Exception:
            flight.failed = True
            raise
        finally:
            del self._flights[on_loop]
            flight.done.set()

    async def _fill(self, key: Key, call: ToolCall, call_next: CallNext) -> ToolResult:
        self.misses += 1
        result = await call_next(call)
        if not result.is_error and not past(call.ctx.deadline):
            entries = self._entries
            entries[key] = (anyio.current_time() + self.ttl, result, call.tool.run)  # (its `run` kept: see `Key`)
            if len(entries) > self.max_entries:
                entries.popitem(last=False)
        return result

    async def _fill_shared(self, shared: SharedCache, key: Key, call: ToolCall, call_next: CallNext) -> ToolResult:
        """The shared entry, or the call's result stored there (by one replica at a time)."""
        name = f"{key[1]}:{hashlib.blake2b(self.canonical(key[2:]).encode(), digest_size=20).hexdigest()}"
        try:
            found = await self._shared_entry(shared, name)
        except StoreUnavailable:  # the outage story: no cache
            self.misses += 1
            return await call_next(call)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        try:
            result = await call_next(call)
            if not result.is_error and not past(call.ctx.deadline):
                value = _results().dump_json(result)
                if len(value) <= shared.max_value_bytes:
                    await shared.put(name, value)
        except StoreUnavailable:
            pass
        finally:
            with anyio.CancelScope(shield=True), contextlib.suppress(StoreUnavailable):
                await shared.done(name)
        return result

    async def _shared_entry(self, shared: SharedCache, name: str) -> ToolResult | None:
        """The shared entry `name` once there; None when this process is to compute it: it took the
        lead, the replica it waited for ended without an entry (an error result, one too large, a
        failure: every replica waiting then computes it at once, not each in turn), or it waited
        `lead_for`."""
        waited = False
        with anyio.move_on_after(self.lead_for):
            while True:
                value, led = await shared.look(name)
                found = _decoded(value)
                if found is not None:
                    return found
                if not led:
                    if waited:
                        return None
                    if await shared.lead(name, self.lead_for):
                        return await _written_meanwhile(shared, name)
                waited = True
                await anyio.sleep(self.poll)
        return None


async def _written_meanwhile(shared: SharedCache, name: str) -> ToolResult | None:
    """The entry `name` if another replica wrote it between the look and taking the lead (which is
    given back then), else None: this process computes it. A failure or a cancellation gives the
    lead back too: every replica would wait `lead_for` for an entry nobody computes."""
    try:
        found = _decoded(await shared.get(name))
    except BaseException:
        with anyio.CancelScope(shield=True), contextlib.suppress(StoreUnavailable):
            await shared.done(name)
        raise
    if found is not None:
        await shared.done(name)
    return found


def _decoded(value: bytes | None) -> ToolResult | None:
    """A stored result, or None (none stored, or one this version cannot read: computed again)."""
    if value is None:
        return None
    try:
        return _results().validate_json(value)
    except ValueError:
        return None
