"""Sync user code in worker threads, with a hard bound on the threads it may occupy.

A sync tool, prompt or resource runs in a worker thread (`anyio.to_thread.run_sync`, at most
anyio's default 40 at once). A thread cannot be interrupted: when its call is cancelled (a
`Timeout`, a client's cancellation) the call returns at once and the thread runs on, its result
discarded — *abandoned*. anyio gives an abandoned thread's slot back at once, so without a
bound a client could grow threads without limit by timing out slow calls. Here every thread
running user code is counted until it really ends, abandoned or not: at most `MAX_THREADS` run
at once, and a sync call that would need one more is refused (`Rejected`, "try again later")
without running. Each request counts its own abandoned threads in
`ctx.state[ABANDONED_THREADS]` (so `Timeout` can report them).

Example:
    >>> import anyio
    >>> from toolweave.core.context import Context
    >>> def add(a: int, b: int) -> int:
    ...     return a + b
    >>> anyio.run(run_in_worker, add, {"a": 1, "b": 2}, Context())
    3
    >>> busy_threads(), abandoned_threads()
    (0, 0)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from toolweave.core.context import Context
from toolweave.core.errors import Rejected

ABANDONED_THREADS = "toolweave.abandoned_threads"
"""`ctx.state` key: how many worker threads of this request were abandoned on cancellation."""
MAX_THREADS = 80
"""The most threads running sync user code at once, abandoned ones included."""

_lock = threading.Lock()
_busy = 0
_abandoned = 0
_REFUSED = object()


def busy_threads() -> int:
    """How many threads run sync user code right now (abandoned ones included)."""
    return _busy


def abandoned_threads() -> int:
    """How many of those belong to calls that were cancelled (their results will be discarded)."""
    return _abandoned


async def run_in_worker(fn: Callable[..., Any], arguments: dict[str, Any], ctx: Context) -> Any:
    """`fn(**arguments)` in a worker thread; on cancellation the thread is abandoned, and counted
    until it ends.

    Raises:
        Rejected: `MAX_THREADS` threads are busy with earlier calls (the function did not run).
    """
    thread = _Thread()
    try:
        value = await anyio.to_thread.run_sync(thread.runner(fn, arguments), abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        if thread.abandon():
            ctx.state[ABANDONED_THREADS] = ctx.state.get(ABANDONED_THREADS, 0) + 1
        raise
    if value is _REFUSED:
        raise Rejected(
            "The server is busy: too many earlier calls are still running (some after they were "
            "cancelled); try again later"
        )
    return value


class _Thread:
    """One call's worker thread: not started, running, abandoned while running, or finished."""

    __slots__ = ("abandoned", "finished", "started")

    def __init__(self) -> None:
        self.abandoned = False
        self.started = False
        self.finished = False

    def runner(self, fn: Callable[..., Any], arguments: dict[str, Any]) -> Callable[[], Any]:
        def run() -> Any:
            global _busy
            with _lock:
                if self.abandoned:  # cancelled before the thread got to it: nothing to run
                    return None
                if _busy >= MAX_THREADS:
                    return _REFUSED
                _busy += 1
                self.started = True
            try:
                return fn(**arguments)
            finally:
                self._finish()

        return run

    def _finish(self) -> None:
        global _abandoned, _busy
        with _lock:
            self.finished = True
            _busy -= 1
            if self.abandoned:
                _abandoned -= 1

    def abandon(self) -> bool:
        """Mark the call abandoned; True if its thread is still running user code (and now counted)."""
        global _abandoned
        with _lock:
            if self.finished or self.abandoned:
                return False
            self.abandoned = True
            if not self.started:
                return False
            _abandoned += 1
            return True
