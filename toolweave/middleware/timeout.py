"""`Timeout`: a deadline per call; past it the call is cancelled and the client gets `ToolTimeout`.

The limit of each tool is resolved once, when the catalog is compiled (the first matching glob
of `per_tool`, else `default`); a tool without a limit gets no `Timeout` in its chain at all.
During a call the deadline is visible to everything inside as `ctx.deadline` (on the
`anyio.current_time()` clock; an outer, tighter deadline is kept), and the loop's watchdog
cancels the rest of the chain at the deadline (`toolweave.core.deadlines`: one timer for every
call, no cancel scope per call, nothing of the request kept after it; anyio's shields hold):

- an async tool is cancelled: its `finally` blocks (and those of inner middleware) run;
- a sync function tool runs in a worker thread, which cannot be interrupted: the call still
  returns on time, the thread's eventual result is discarded, and the abandoned thread is
  counted in `abandoned_threads`. An abandoned thread keeps its slot among the threads sync
  code may use (`toolweave.core.threads`: anyio's default thread limit, 40) until it ends;
  while every slot is held by one, new sync calls are refused ("the server is busy") instead of
  growing threads without limit;
- a request from an MCP client (`ctx.hard_deadline`) is answered on time whatever the tool
  does: the call runs in a task of its own, and a tool that ignores the cancellation (it shields
  itself, or awaits a thread that cannot be interrupted) is abandoned `GRACE` seconds after the
  deadline: the client gets its answer, the task runs on, its result is discarded, and it is
  counted in `abandoned_tasks`. In-process calls run in the caller's task (a task of their own
  would cost several times the call): a tool that ignores cancellation holds such a caller until
  it ends, unless it passes `Context(hard_deadline=True)`;
- the client gets an `isError` result: `Tool 'name' timed out after 2s`.

`abandoned` counts both kinds of work left running. A tool that blocks the event loop itself (a
sync tool run inline, `run_in_thread=False`, or an `async def` tool calling `time.sleep`) gives
the watchdog no chance to run: nothing can answer before it returns. When it returns after its
deadline, its value is discarded all the same and the client gets `ToolTimeout` (every path
compares the clock with the deadline when the call ends: one clock read per call).

Put `Timeout` inside `Logging` (so the record says `timeout`) and outside `Retry` if the limit
is for all attempts together, inside it for each attempt (a timeout itself is never retried).

Example:
    >>> timeout = Timeout(default=30, per_tool={"slow_*": 120, "quick_*": 2})
    >>> timeout.seconds_for("slow_report"), timeout.seconds_for("other")
    (120, 30)
"""

from __future__ import annotations

import asyncio  # noqa: TID251 - the call's own task and its future: see toolweave.core.deadlines
from collections.abc import Mapping
from typing import Any

import anyio

from toolweave.core.deadlines import RESOLUTION, TaskDeadline, Watchdog, abandon, current_task, passed, watchdog
from toolweave.core.errors import ToolTimeout
from toolweave.core.result import ToolResult
from toolweave.core.threads import ABANDONED_THREADS
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Handler, Middleware, ToolCall
from toolweave.middleware.keys import per_tool_value, positive
from toolweave.telemetry import events

GRACE = 0.02
"""Seconds a cancelled call of an MCP client's request gets to end before it is abandoned."""


class Timeout(Middleware):
    """Cancel calls that run longer than their limit.

    Args:
        default: Seconds allowed for tools no `per_tool` glob matches; `None` = no limit.
        per_tool: `{glob: seconds}`; the first matching glob wins; `None` as a value exempts.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).

    Attributes:
        timeouts: How many calls timed out.
        abandoned: How many timed-out calls left work running (a thread or a task).
        abandoned_threads: How many of them left a sync worker thread running.
        abandoned_tasks: How many of them left a task running (a tool ignoring cancellation).
    """

    def __init__(
        self,
        default: float | None = None,
        per_tool: Mapping[str, float | None] | None = None,
        *,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        positive(default, "Timeout default")
        if per_tool is not None and not isinstance(per_tool, Mapping):
            raise TypeError(f"Timeout per_tool takes {{glob: seconds}}, not {type(per_tool).__name__}")
        for pattern, seconds in (per_tool or {}).items():
            positive(seconds, f"Timeout per_tool[{pattern!r}]")
        self.default = default
        self.per_tool = dict(per_tool or {})
        self.timeouts = 0
        self.abandoned_threads = 0
        self.abandoned_tasks = 0

    @property
    def abandoned(self) -> int:
        """Timed-out calls that left work running: worker threads and tasks."""
        return self.abandoned_threads + self.abandoned_tasks

    def timed_out(self, call: ToolCall, seconds: float, tasks: int = 0) -> ToolTimeout:
        """Count one timed-out call (and the work it left running); the error to raise."""
        self.timeouts += 1
        events.timed_out(call.tool, call.ctx, seconds)
        self.abandoned_threads += call.ctx.state.pop(ABANDONED_THREADS, 0)
        self.abandoned_tasks += tasks
        return ToolTimeout(call.tool.name, seconds)

    def seconds_for(self, name: str) -> float | None:
        """The limit for the tool exposed as `name`, or `None`."""
        return per_tool_value(self.per_tool, name, self.default)

    def for_tool(self, tool: Tool) -> Middleware | None:
        """A `Timeout` bound to this tool's limit, or nothing when it has none."""
        if not self.applies_to(tool):
            return None
        seconds = self.seconds_for(tool.name)
        return None if seconds is None else ToolDeadline(self, seconds)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Resolve the limit now (when used outside a compiled chain) and apply it."""
        seconds = self.seconds_for(call.tool.name)
        if seconds is None:
            return await call_next(call)
        return await ToolDeadline(self, seconds).on_call_tool(call, call_next)

    def __repr__(self) -> str:
        return f"Timeout(default={self.default!r}, per_tool={self.per_tool!r})"


class ToolDeadline(Middleware):
    """A `Timeout` with one tool's limit already resolved (what a compiled chain holds)."""

    __slots__ = ("owner", "seconds")

    def __init__(self, owner: Timeout, seconds: float) -> None:
        self.owner = owner
        self.seconds = seconds
        self.tools = owner.tools

    @property
    def name(self) -> str:
        return f"Timeout({self.seconds:g}s)"

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return await self.bind_tool(call_next)(call)

    def bind_tool(self, call_next: Handler) -> Handler:
        """The deadline step, with this tool's limit and the rest of its chain bound once."""
        seconds, timed_out = self.seconds, self.owner.timed_out
        detached, scoped, anyio_deadline = self._detached, self._scoped, self._anyio_deadline

        async def bounded(call: ToolCall) -> ToolResult:
            dog = watchdog()
            if dog is None:
                return await anyio_deadline(call, call_next)
            ctx = call.ctx
            if ctx.hard_deadline:
                return await detached(dog, call, call_next)
            if not dog.native:
                return await scoped(dog, call, call_next)
            deadline = TaskDeadline(dog, current_task(dog.loop), seconds)  # type: ignore[arg-type]  # (in a task)
            outer = ctx.deadline
            when = deadline.when
            ctx.deadline = when if outer is None or when < outer else outer  # `_tighter`, inline: every call's path
            try:
                result = await call_next(call)
            except asyncio.CancelledError:
                if not deadline.end():  # not (only) our deadline: someone else cancels this task
                    raise
            finally:
                deadline.end()
                ctx.deadline = outer
            if deadline.fired is not None or when <= dog.clock() + RESOLUTION:  # `passed`, inline
                raise timed_out(call, seconds)  # cancelled (swallowed or ignored), or late: it blocked the loop
            return result

        return bounded

    async def _scoped(self, dog: Watchdog, call: ToolCall, call_next: CallNext) -> ToolResult:
        """The call in an anyio scope the watchdog cancels (where `TaskDeadline` is unavailable)."""
        ctx, scope = call.ctx, dog.scope_class()
        watch = dog.watch(self.seconds, scope.cancel)
        outer = ctx.deadline
        ctx.deadline = _tighter(watch.when, outer)
        try:
            with scope:
                result = await call_next(call)
        finally:
            watch.done()
            ctx.deadline = outer
        if scope.cancel_called or passed(watch.when, dog.clock()):  # cancelled, or late (blocked the loop)
            raise self.owner.timed_out(call, self.seconds)
        return result

    async def _detached(self, dog: Watchdog, call: ToolCall, call_next: CallNext) -> ToolResult:
        """The call in a task of its own, answered by the deadline (+`GRACE`) whatever it does."""
        ctx, loop, seconds = call.ctx, dog.loop, self.seconds
        answer: asyncio.Future[None] = loop.create_future()

        def settle() -> None:
            if not answer.done():
                answer.set_result(None)

        async def run() -> ToolResult:
            try:
                return await call_next(call)
            finally:
                settle()  # from inside the task's last step: the caller resumes one loop turn sooner

        outer = ctx.deadline
        child = loop.create_task(run())
        deadline = TaskDeadline(dog, child, seconds)  # cancels the child (its shields hold)
        answered = dog.watch(seconds + GRACE, settle)  # answers whether or not the child ended
        ctx.deadline = _tighter(deadline.when, outer)
        try:
            await asyncio.sleep(0)  # one loop turn, in which the child takes its first step
            if not answer.done():  # (a call that ends without waiting is answered in that turn)
                await answer
        except BaseException:  # this request was cancelled: cancel the call, give it GRACE to end
            if deadline.fired is None:
                deadline.fire()
            await _ended(child, GRACE)
            if child.done():
                _discard(child)
            else:
                abandon(child, f"cancelled call of tool {call.tool.name!r}")
            raise
        finally:
            deadline.end()
            answered.done()
            if child.done():  # an abandoned call runs on under its own, passed, deadline (a `Retry`
                ctx.deadline = outer  # inside stops; a `Logging` says timeout), not the caller's
        if not child.done():
            abandon(child, f"timed-out call of tool {call.tool.name!r}")
            raise self.owner.timed_out(call, seconds, tasks=1)
        if deadline.fired is not None or passed(deadline.when, dog.clock()):  # cancelled, or late
            _discard(child)
            raise self.owner.timed_out(call, seconds)
        return child.result()

    async def _anyio_deadline(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Off asyncio: anyio's own deadline (no watchdog, no hard cap)."""
        ctx = call.ctx
        outer = ctx.deadline
        deadline = anyio.current_time() + self.seconds
        ctx.deadline = _tighter(deadline, outer)
        try:
            with anyio.CancelScope(deadline=deadline) as scope:
                result = await call_next(call)
        finally:
            ctx.deadline = outer
        if scope.cancel_called or passed(deadline, anyio.current_time()):  # cancelled, or late
            raise self.owner.timed_out(call, self.seconds)
        return result


def _tighter(when: float, outer: float | None) -> float:
    """The deadline a call inside `outer` (the request's deadline so far, if any) runs under."""
    return when if outer is None or when < outer else outer


def _discard(task: asyncio.Task[Any]) -> None:
    """Drop an ended task's outcome, marked as seen (no "exception was never retrieved" warning)."""
    if not task.cancelled():
        task.exception()


async def _ended(task: asyncio.Task[Any], within: float) -> None:
    """Wait (shielded, at most `within` seconds) for `task` to end."""
    ended: asyncio.Future[None] = task.get_loop().create_future()

    def settle(_: object) -> None:
        if not ended.done():
            ended.set_result(None)

    task.add_done_callback(settle)
    with anyio.CancelScope(shield=True), anyio.move_on_after(within):
        await ended
