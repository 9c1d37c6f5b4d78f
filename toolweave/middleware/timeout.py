"""`Timeout`: a deadline per call; past it the call is cancelled and the client gets `ToolTimeout`.

The limit of each tool is resolved once, when the catalog is compiled (the first matching glob
of `per_tool`, else `default`); a tool without a limit gets no `Timeout` in its chain at all.
During a call the deadline is visible to everything inside as `ctx.deadline` (on the
`anyio.current_time()` clock; an outer, tighter deadline is kept), and the rest of the chain runs
in an anyio cancel scope with that deadline:

- an async tool is cancelled: its `finally` blocks (and those of inner middleware) run;
- a sync function tool runs in a worker thread, which cannot be interrupted: the call still
  returns on time, the thread's eventual result is discarded, and the abandoned thread is
  counted in `abandoned_threads`. An abandoned thread keeps its slot among the threads sync
  code may use (`toolweave.core.threads`: anyio's default thread limit, 40) until it ends;
  while every slot is held by one, new sync calls are refused ("the server is busy") instead of
  growing threads without limit;
- the client gets an `isError` result: `Tool 'name' timed out after 2s`.

Put `Timeout` inside `Logging` (so the record says `timeout`) and outside `Retry` if the limit
is for all attempts together, inside it for each attempt (a timeout itself is never retried).

Example:
    >>> timeout = Timeout(default=30, per_tool={"slow_*": 120, "quick_*": 2})
    >>> timeout.seconds_for("slow_report"), timeout.seconds_for("other")
    (120, 30)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from toolweave.core.errors import ToolTimeout
from toolweave.core.result import ToolResult
from toolweave.core.threads import ABANDONED_THREADS
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.middleware.keys import per_tool_value, positive
from toolweave.telemetry import events


class Timeout(Middleware):
    """Cancel calls that run longer than their limit.

    Args:
        default: Seconds allowed for tools no `per_tool` glob matches; `None` = no limit.
        per_tool: `{glob: seconds}`; the first matching glob wins; `None` as a value exempts.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).

    Attributes:
        timeouts: How many calls timed out.
        abandoned_threads: How many timed-out calls left a sync worker thread running.
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
        for pattern, seconds in (per_tool or {}).items():
            positive(seconds, f"Timeout per_tool[{pattern!r}]")
        self.default = default
        self.per_tool = dict(per_tool or {})
        self.timeouts = 0
        self.abandoned_threads = 0

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
        ctx = call.ctx
        outer = ctx.deadline
        deadline = anyio.current_time() + self.seconds
        ctx.deadline = deadline if outer is None or deadline < outer else outer
        try:
            # CancelScope(deadline=...) is what `fail_after` uses, without its generator wrapper.
            with anyio.CancelScope(deadline=deadline):
                return await call_next(call)
        finally:
            ctx.deadline = outer
        # Reached only when our own deadline cancelled the call (the scope swallowed it).
        owner = self.owner
        owner.timeouts += 1
        events.timed_out(call.tool.name, self.seconds)
        abandoned = ctx.state.pop(ABANDONED_THREADS, 0)
        if abandoned:
            owner.abandoned_threads += abandoned
        raise ToolTimeout(call.tool.name, self.seconds)
