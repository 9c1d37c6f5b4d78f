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

A call that outlives its deadline and ignores cancellation (it shields itself, or awaits a thread
that cannot be interrupted) can be *abandoned*: its answer goes out without it, the task runs on
until it ends, its result is discarded, and `abandoned_tasks()` counts it meanwhile (the task is
kept referenced here so it is not garbage-collected mid-flight).

The watchdog is asyncio machinery (a loop timer, tasks that outlive the request): anyio has no
timer callback and no detached task. On another anyio backend `watchdog()` is `None` and callers
use anyio's own deadlines instead.

Example:
    >>> import anyio
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
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import anyio

logger = logging.getLogger("toolweave.calls")
Action = Callable[[], object]
_RESOLUTION = time.get_clock_info("monotonic").resolution
"""asyncio runs a timer up to one clock tick early: a deadline within it is due."""


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


class Watchdog:
    """Every deadline registered on one asyncio event loop, behind one loop timer.

    Attributes:
        loop: The loop it serves.
        scope_class: The backend's `CancelScope` class (made directly, it skips anyio's
            per-construction backend look-up).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.scope_class: type[anyio.CancelScope] = type(anyio.CancelScope())
        self._queues: dict[float, deque[Watch]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._armed_at = math.inf
        self._context = contextvars.Context()  # the timer holds no request's contextvars

    def watch(self, seconds: float, action: Action) -> Watch:
        """Run `action()` `seconds` from now, unless the returned watch is `done()` before."""
        when = self.loop.time() + seconds
        queue = self._queues.get(seconds)
        if queue is None:
            queue = self._queues[seconds] = deque()
        watch = Watch(when, action, queue)
        queue.append(watch)
        if when < self._armed_at:
            self._arm(when)
        return watch

    def pending(self) -> int:
        """How many watches are registered and not done (for tests and diagnostics)."""
        return sum(1 for queue in self._queues.values() for watch in queue if watch.action is not None)

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._armed_at = when
        self._timer = self.loop.call_at(when, self._fire, context=self._context)

    def _fire(self) -> None:
        self._timer, self._armed_at = None, math.inf
        now = self.loop.time() + _RESOLUTION
        due: list[Action] = []
        earliest = math.inf
        for queue in self._queues.values():
            while queue:
                watch = queue[0]
                if watch.action is None:
                    queue.popleft()
                elif watch.when <= now:
                    queue.popleft()
                    due.append(watch.action)
                    watch.action = None
                else:
                    earliest = min(earliest, watch.when)
                    break
        if earliest < self._armed_at:
            self._arm(earliest)
        for action in due:  # after the loop: an action may register a new watch
            try:
                action()
            except Exception:  # a failing action must not stop the others
                logger.exception("a deadline action failed")


_last: tuple[Any, Watchdog | None] = (None, None)  # one read: threads running loops of their own race safely
_dogs: dict[int, tuple[Any, Watchdog]] = {}
_lock = threading.Lock()


def watchdog() -> Watchdog | None:
    """The running asyncio loop's watchdog (made on first use), or `None` off asyncio."""
    global _last
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another backend (trio)
        return None
    last_loop, dog = _last
    if loop is last_loop:
        return dog
    with _lock:
        entry = _dogs.get(id(loop))
        if entry is None or entry[0] is not loop:
            for key in [key for key, (other, _) in _dogs.items() if other.is_closed()]:
                del _dogs[key]
            entry = _dogs[id(loop)] = (loop, Watchdog(loop))
        _last = entry
    return entry[1]


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
