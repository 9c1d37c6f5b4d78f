"""`Progress`: forward a tool's progress to the client, throttled, in order, never after the reply.

For the length of a call, `Progress` puts a throttle in front of the request's progress sink
(`ctx.progress_sink`, restored when the call ends; the edge's sink sends nothing unless the
client asked for progress):

- at most `max_rate` notifications per second reach the client: a value is sent at once when the
  last send is at least `1 / max_rate` seconds old, otherwise it is kept as *pending* (a newer
  value replaces it). A tool reporting 10,000 times costs the client a handful of messages;
- the final value is always delivered: a pending value is sent when the call returns (or
  fails), before the response;
- values are strictly increasing: a value not above the last one accepted is dropped;
- nothing is sent after the call returns: the throttle is closed first;
- with `heartbeat=seconds`, on every served request (in-process calls without a sink aside; the
  beats reach only clients that asked for progress), a helper task sends, after that many
  seconds without a notification, the pending value if there is one, else a keep-alive: the
  last value nudged up by the smallest float step, its total and the message `"working"`. That
  keeps clients that reset their timeout on progress waiting. A tool's own later value not
  above a heartbeat value is dropped.

Without `heartbeat` no task is started: the throttle works inline, and a call that never
reports costs one small object.

Example:
    >>> progress = Progress(max_rate=5, heartbeat=10)
    >>> progress.interval
    0.2
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any

import anyio

from toolweave.core.context import Context, ProgressSink
from toolweave.core.result import ToolResult
from toolweave.middleware.base import CallNext, Handler, Middleware, ToolCall
from toolweave.middleware.keys import positive

_NO_SINK = next(f.default for f in dataclasses.fields(Context) if f.name == "progress_sink")
Item = tuple[float, float | None, str | None]


class Progress(Middleware):
    """Throttled, ordered progress forwarding with an optional heartbeat.

    Args:
        max_rate: The most notifications per second sent for one call.
        heartbeat: Seconds of silence after which a keep-alive notification is sent; `None` = off.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).
    """

    def __init__(self, max_rate: float = 10.0, heartbeat: float | None = None, *, tools: Any = None) -> None:
        super().__init__(tools=tools)
        positive(max_rate, "Progress max_rate", allow_none=False)
        positive(heartbeat, "Progress heartbeat")
        self.max_rate = max_rate
        self.interval = 1.0 / max_rate
        self.heartbeat = heartbeat

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return await (call_next(call) if _unheard(call) else self._throttled(call, call_next))

    def bind_tool(self, call_next: Handler) -> Handler:
        """A call without a progress sink passes straight through (no coroutine of its own)."""
        return self.bind_skippable(Progress, call_next, _unheard, self._throttled)

    async def _throttled(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        ctx = call.ctx
        original = ctx.progress_sink
        throttle = Throttle(original, self.interval)
        ctx.progress_sink = throttle.report
        try:
            # Served requests always have a sink; it sends nothing unless the client asked for
            # progress (a token in `_meta`, or the in-memory 2026 dispatch's callback), so the
            # heartbeat runs whenever there is a sink, whatever the transport.
            if self.heartbeat is None:
                result = await call_next(call)
            else:
                result = await self._with_heartbeat(call, call_next, throttle, self.heartbeat)
        except Exception:  # a failed call still reports how far it got (not a cancelled one)
            with contextlib.suppress(Exception):
                await throttle.close()
            raise
        else:
            await throttle.close()
        finally:
            throttle.done = True
            ctx.progress_sink = original
        return result

    async def _with_heartbeat(
        self, call: ToolCall, call_next: CallNext, throttle: Throttle, every: float
    ) -> ToolResult:
        error: Exception | None = None
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(throttle.beat, every)
            try:
                result = await call_next(call)
            except Exception as raised:  # re-raised below, outside the task group, unwrapped
                error = raised
            tasks.cancel_scope.cancel()
        if error is not None:
            raise error
        return result


class Throttle:
    """The per-call state of `Progress`: sends at most one value per interval, in order."""

    __slots__ = (
        "count",
        "done",
        "interval",
        "last",
        "next_at",
        "pending",
        "sending",
        "sent",
        "sent_at",
        "sink",
    )

    def __init__(self, sink: ProgressSink, interval: float) -> None:
        self.sink = sink
        self.interval = interval
        self.last = -math.inf  # the highest value accepted (sent or pending)
        self.pending: Item | None = None
        self.sent: Item | None = None
        self.next_at = -math.inf
        self.sent_at = -math.inf
        self.sending = False
        self.done = False
        self.count = 0

    async def report(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """The progress sink the tool sees: send now if the rate allows, else keep as pending."""
        if self.done or not progress > self.last:  # also drops NaN
            return
        self.last = progress
        if self.sending or anyio.current_time() < self.next_at:
            self.pending = (progress, total, message)
            return
        self.pending = None
        await self._send((progress, total, message))

    async def close(self) -> None:
        """The call returned: deliver the pending (final) value, then accept nothing more."""
        self.done = True
        item, self.pending = self.pending, None
        if item is not None:
            await self._send(item)

    async def beat(self, every: float) -> None:
        """Heartbeat task: after `every` seconds without a send, send the pending value or a keep-alive."""
        self.sent_at = max(self.sent_at, anyio.current_time())  # count silence from the start
        while not self.done:
            wait = max(self.sent_at + every, self.next_at) - anyio.current_time()  # never above max_rate
            if wait > 0 or self.sending:
                await anyio.sleep(wait if wait > 0 else self.interval)
                continue
            item, self.pending = self.pending, None
            await self._send(item or self._keep_alive())

    def _keep_alive(self) -> Item:
        value = math.nextafter(self.sent[0], math.inf) if self.sent else 0.0
        self.last = max(self.last, value)
        return (value, self.sent[1] if self.sent else None, "working")

    async def _send(self, item: Item) -> None:
        self.sending = True
        self.sent_at = now = anyio.current_time()
        self.next_at = now + self.interval
        self.sent = item
        self.count += 1
        try:
            await self.sink(*item)
        finally:
            self.sending = False


def _unheard(call: ToolCall) -> bool:
    """Nobody to tell: an in-process call without a progress sink."""
    return call.ctx.progress_sink is _NO_SINK
