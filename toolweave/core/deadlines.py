"""Deadlines of every call on one event loop, behind one timer; calls left running past them.

`Timeout` registers each call's deadline with the loop's `Watchdog` instead of giving its cancel
scope a deadline of its own. A scope with a deadline arms and cancels an event-loop timer per
call, and the cancelled timer stays in the loop's heap with a copy of the request's contextvars
(the whole request `Context`) until the loop purges it: thousands of dead requests kept alive,
and the cyclic garbage collector woken to look at them. Here one timer per loop serves every
deadline. Deadlines of one length arrive in time order, so each length is a FIFO queue; the timer
is armed for the earliest deadline and moved only when an earlier one arrives; it runs in an empty
context. A call that ends drops its action at once (its scope, hence its request), so nothing of
a finished request stays behind.

A `TaskDeadline` is the cheap way to bound a call running in the caller's task: no cancel scope
per call. When it passes, the watchdog cancels the task natively (`task.cancel()`, as
`asyncio.timeout` does) and keeps cancelling it on every loop turn until the call ends, as an
anyio scope would; a cancellation it requested is withdrawn (`uncancel`) when the call ends, so
the caller can tell its own cancellation (a `ToolTimeout`) from anyone else's. anyio's shields are
respected: while the task is inside a shielded anyio scope entered during the call, nothing is
delivered (it is retried every `SHIELD_POLL` seconds). To see them it reads anyio's per-task scope
record (`anyio._backends._asyncio._task_states`, the scope's `_shield` and `_parent_scope`): if a
future anyio moves them, `TaskDeadline` is unavailable (`Watchdog.native` is false) and callers
fall back to an anyio cancel scope per call, which the watchdog cancels.

A call that outlives its deadline and ignores cancellation (it shields itself, or awaits a thread
that cannot be interrupted) can be *abandoned*: its answer goes out without it, the task runs on
until it ends, its result is discarded, and `abandoned_tasks()` counts it meanwhile (the task is
kept referenced here so it is not garbage-collected mid-flight).

The watchdog is asyncio machinery (a loop timer, tasks that outlive the request): anyio has no
timer callback and no detached task. On another anyio backend `watchdog()` is `None` and callers
use anyio's own deadlines instead.

Example:
    >>> import anyio, asyncio
    >>> async def bounded() -> tuple[bool, bool]:
    ...     deadline = TaskDeadline(watchdog(), asyncio.current_task(), 0.01)
    ...     try:
    ...         await anyio.sleep(5)  # cancelled at the deadline
    ...     except anyio.get_cancelled_exc_class():
    ...         pass
    ...     ours = deadline.end()
    ...     return ours, deadline.fired is not None
    >>> anyio.run(bounded)
    (True, True)
    >>> async def demo() -> tuple[bool, bool]:
    ...     dog = watchdog()
    ...     scope = dog.scope_class()
    ...     watch = dog.watch(0.01, scope.cancel)
    ...     with scope:
    ...         await anyio.sleep(5)  # cancelled at the deadline
    ...     watch.done()
    ...     return scope.cancelled_caught, watch.action is None
    >>> anyio.run(demo)
    (True, True)
"""

from __future__ import annotations

import asyncio  # noqa: TID251 - one timer per loop and detached stragglers: see the module docstring
import contextvars
import logging
import math
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

import anyio

logger = logging.getLogger("toolweave.calls")
Action = Callable[[], object]
current_task: Callable[[asyncio.AbstractEventLoop], asyncio.Task[Any] | None] = (
    asyncio.tasks._current_tasks.get  # type: ignore[attr-defined]  # (3.11 only)
    if sys.version_info < (3, 12)
    else asyncio.current_task
)
"""The task `loop` is running now (3.11's `asyncio.current_task` is Python around this look-up)."""
_running_loop = asyncio.get_running_loop
_thread_id = threading.get_ident
_ref = weakref.ref
RESOLUTION = time.get_clock_info("monotonic").resolution
"""asyncio runs a timer up to one clock tick early: a deadline within it is due (see `passed`)."""
SHIELD_POLL = 0.005
"""Seconds between attempts to cancel a task whose deadline passed while it was shielded."""
DEADLINE_MESSAGE = "toolweave: the call's deadline passed"
"""The message of the cancellation a `TaskDeadline` delivers."""


class Watch:
    """One registered deadline: `action()` runs when it passes, unless `done()` came first."""

    __slots__ = ("action", "queue", "when")

    def __init__(self, when: float, action: Action, queue: deque[Watch]) -> None:
        self.when = when
        self.action: Action | None = action
        self.queue = queue

    def done(self) -> None:
        """The call ended: forget the action (and all it holds) now; drop ended watches in front."""
        self.action = None
        queue = self.queue
        while queue and queue[0].action is None:
            queue.popleft()

    def fire(self) -> None:
        """The deadline passed: run the action (once)."""
        action, self.action = self.action, None
        if action is not None:
            action()


def passed(when: float, now: float) -> bool:
    """Whether a deadline at `when` is due at `now`: the watchdog's rule (within one clock tick).

    A call that ends after its deadline passed is late even when the watchdog never fired (a
    tool that blocked the loop gave its timer no chance to run): its callers check this.
    """
    return when <= now + RESOLUTION


def past(deadline: float | None) -> bool:
    """Whether a call under `deadline` (a `ctx.deadline`, if any) is late now.

    Middleware inside a `Timeout` asks this when the call ends: a late outcome is a timeout to
    the client (the `Timeout` outside answers `ToolTimeout` whether the call was cancelled,
    ignored the cancellation and returned, or blocked the loop), so it is not the tool's answer.
    """
    if deadline is None:
        return False
    dog = watchdog()  # its clock is `anyio.current_time()`'s, at a tenth of the cost
    return passed(deadline, anyio.current_time() if dog is None else dog.clock())


def _pending(_: object = None) -> None:
    """The action slot of a `TaskDeadline` whose call is still running (`None` once it ended)."""


class TaskDeadline(Watch):
    """A deadline on the rest of the current task's call: past it, the task is cancelled.

    Made (and registered with the loop's watchdog) in the task it bounds; the call must `end()`
    it when it ends (in a `finally`), and catch the cancellation it delivers (see the module
    docstring).

    Attributes:
        fired: `None` while the deadline has not passed; once it has, the state of the
            cancellation (how many were requested, the next retry).
    """

    __slots__ = ("at_enter", "dog", "fired", "scope", "task")

    def __init__(self, dog: Watchdog, task: asyncio.Task[Any], seconds: float) -> None:
        self.when = when = dog.clock() + seconds
        self.action = _pending
        queue = dog.queues.get(seconds)
        self.queue = queue = dog.queue(seconds) if queue is None else queue
        self.dog = dog
        self.task: asyncio.Task[Any] | None = task
        state = dog.task_records.get(_ref(task))
        self.scope = None if state is None else state.cancel_scope  # where this call sits in anyio's scopes
        self.at_enter = task.cancelling()
        self.fired: Cancelling | None = None
        queue.append(self)  # `Watchdog.register`, inline (once per call)
        if when < dog.armed_at:
            dog.arm(when)

    def fire(self) -> None:
        if self.action is not None:
            self.fired = Cancelling()
            self._deliver()

    def end(self) -> bool:
        """The call ended: stop watching and withdraw the cancellations this deadline requested.

        Returns whether a cancellation now propagating is this deadline's alone: it passed and
        nobody else (an outer scope, a client) has asked the task to cancel. A deadline left in
        the queue (behind a longer call's of the same limit, registered before) lets go of its
        task and scope here: it must not keep a finished request (its task, result and
        `Context`) alive until that call ends.
        """
        self.action = None  # `done()`, inline (once per call)
        queue = self.queue
        while queue and queue[0].action is None:
            queue.popleft()
        task = self.task
        if queue:  # it may stay queued behind a longer call: it lets go of the request now
            self.task = self.scope = None
        fired = self.fired
        if fired is None or task is None:  # (or ended before)
            return False
        if fired.retry is not None:
            fired.retry.cancel()
            fired.retry = None
        while fired.cancels:
            fired.cancels -= 1
            task.uncancel()
        return task.cancelling() <= self.at_enter

    def _deliver(self) -> None:
        """Cancel the task (again) unless a shield entered during the call covers it; retry later."""
        fired, task, dog = self.fired, self.task, self.dog
        if fired is None or task is None or task.done():  # (`task` is `None` once the call ended)
            return
        fired.retry = None
        if self._shielded(task):
            fired.retry = dog.loop.call_later(SHIELD_POLL, self._deliver, context=dog.context)
            return
        if not task._must_cancel:  # type: ignore[attr-defined]  # (anyio checks the same)
            waiter = task._fut_waiter  # type: ignore[attr-defined]
            if waiter is None or not waiter.done():
                task.cancel(DEADLINE_MESSAGE)
                fired.cancels += 1
        fired.retry = dog.loop.call_soon(self._deliver, context=dog.context)  # until the call ends

    def _shielded(self, task: asyncio.Task[Any]) -> bool:
        state = self.dog.task_records.get(_ref(task))
        scope = None if state is None else state.cancel_scope
        while scope is not None and scope is not self.scope:
            if scope._shield:
                return True
            scope = scope._parent_scope
        return False


class Cancelling:
    """A passed `TaskDeadline`'s cancellation: how many it requested, and its next attempt."""

    __slots__ = ("cancels", "retry")

    def __init__(self) -> None:
        self.cancels = 0
        self.retry: asyncio.Handle | None = None


class Watchdog:
    """Every deadline registered on one asyncio event loop, behind one loop timer.

    Attributes:
        loop: The loop it serves.
        clock: The loop's clock (`time.monotonic` itself on asyncio's own loops: one call less).
        scope_class: The backend's `CancelScope` class (made directly, it skips anyio's
            per-construction backend look-up).
        native: Whether `TaskDeadline` is available (anyio's task records are where expected).
        task_records: anyio's record of each task's innermost cancel scope, keyed by a weak
            reference to the task (the dict inside anyio's `WeakKeyDictionary`: one look-up).
        queues: The watches of each limit, in deadline order.
        armed_at: When the timer fires (infinity when it is not armed).
        context: An empty contextvars context: what the timer and retries run in (they hold
            no request's contextvars).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clock: Callable[[], float] = time.monotonic if type(loop).time is asyncio.BaseEventLoop.time else loop.time
        self.scope_class: type[anyio.CancelScope] = type(anyio.CancelScope())
        records = _anyio_task_states()
        self.native = records is not None
        self.task_records: dict[Any, Any] = {} if records is None else records.data
        self.queues: dict[float, deque[Watch]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self.armed_at = math.inf
        self.context = contextvars.Context()

    def watch(self, seconds: float, action: Action) -> Watch:
        """Run `action()` `seconds` from now, unless the returned watch is `done()` before."""
        watch = Watch(self.clock() + seconds, action, self.queue(seconds))
        self.register(watch)
        return watch

    def queue(self, seconds: float) -> deque[Watch]:
        """The queue of the watches of limit `seconds` (they arrive in deadline order)."""
        queue = self.queues.get(seconds)
        if queue is None:
            queue = self.queues[seconds] = deque()
        return queue

    def register(self, watch: Watch) -> None:
        """Queue `watch` (made with `queue(...)`); the timer moves if it is now the earliest."""
        watch.queue.append(watch)
        if watch.when < self.armed_at:
            self.arm(watch.when)

    def pending(self) -> int:
        """How many watches are registered and not done (for tests and diagnostics)."""
        return sum(1 for queue in self.queues.values() for watch in queue if watch.action is not None)

    def arm(self, when: float) -> None:
        """Set the timer for `when` (replacing the one set for later)."""
        if self._timer is not None:
            self._timer.cancel()
        self.armed_at = when
        self._timer = self.loop.call_at(when, self._fire, context=self.context)

    def _fire(self) -> None:
        self._timer, self.armed_at = None, math.inf
        now = self.loop.time() + RESOLUTION  # `passed(watch.when, now)` for each watch below
        due: list[Watch] = []
        earliest = math.inf
        for queue in self.queues.values():
            while queue:
                watch = queue[0]
                if watch.action is None:
                    queue.popleft()
                elif watch.when <= now:
                    queue.popleft()
                    due.append(watch)
                else:
                    earliest = min(earliest, watch.when)
                    break
        if earliest < self.armed_at:
            self.arm(earliest)
        for watch in due:  # after the loop: an action may register a new watch
            try:
                watch.fire()
            except Exception:  # a failing action must not stop the others
                logger.exception("a deadline action failed")


def _anyio_task_states() -> Any:
    """anyio's record of each asyncio task's innermost cancel scope, if it is where expected."""
    try:
        from anyio._backends._asyncio import CancelScope, _task_states
    except ImportError:
        return None
    probe = CancelScope()  # the backend's class: no running loop needed, nothing entered
    if not all(hasattr(probe, name) for name in ("_shield", "_parent_scope")):
        return None
    return _task_states


_dogs: dict[int, tuple[Any, Watchdog]] = {}
_lock = threading.Lock()
_running: dict[int, Watchdog] = {}
"""The watchdog of the loop each thread is running, by thread id: found without asking asyncio
for the running loop, which costs a `getpid()` system call each time (CPython checks the loop
was not inherited through `fork`; so does `register_at_fork` below, once)."""
os.register_at_fork(after_in_child=_running.clear)


def watchdog() -> Watchdog | None:
    """The running asyncio loop's watchdog (made on first use), or `None` off asyncio."""
    thread = _thread_id()
    dog = _running.get(thread)
    if dog is not None and dog.loop._thread_id == thread:  # type: ignore[attr-defined]  # still running here
        return dog
    try:
        loop = _running_loop()
    except RuntimeError:  # another backend (trio)
        return None
    with _lock:
        entry = _dogs.get(id(loop))
        if entry is None or entry[0] is not loop:
            for key in [key for key, (other, _) in _dogs.items() if other.is_closed()]:
                del _dogs[key]
            for key in [key for key, other in _running.items() if other.loop.is_closed()]:
                del _running[key]
            entry = _dogs[id(loop)] = (loop, Watchdog(loop))
        dog = entry[1]
        if getattr(loop, "_thread_id", None) == thread:  # asyncio's own loops say where they run
            _running[thread] = dog
    return dog


def cancel_requested() -> bool:
    """Whether someone asked the running asyncio task to cancel and has not withdrawn it (a
    `TaskDeadline` that passed, `task.cancel()`); `False` off asyncio or outside a task."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    return task is not None and task.cancelling() > 0


# -- calls left running past their deadline -------------------------------------------------------

_abandoned: set[asyncio.Task[Any]] = set()


def abandoned_tasks() -> int:
    """How many abandoned calls are still running (their results will be discarded)."""
    return len(_abandoned)


def abandon(task: asyncio.Task[Any], label: str) -> None:
    """Leave `task` to finish on its own: keep it referenced until it ends, then discard its result."""
    _abandoned.add(task)
    loop = task.get_loop()
    since = loop.time()

    def ended(task: asyncio.Task[Any]) -> None:
        _abandoned.discard(task)
        error = None if task.cancelled() else task.exception()  # retrieved: no "never retrieved" warning
        how = "failed" if error is not None else "ended"
        logger.info("%s %s %.2fs after it was abandoned; its result was discarded", label, how, loop.time() - since)

    task.add_done_callback(ended)
