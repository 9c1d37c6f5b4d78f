"""Sync user code in worker threads: a slot per thread, held until the thread really ends.

A sync tool, prompt or resource runs in a worker thread (`anyio.to_thread.run_sync`). A thread
cannot be interrupted: when its call is cancelled (a `Timeout`, a client's cancellation) the
call returns at once and the thread runs on, its result discarded — *abandoned*. anyio gives an
abandoned thread's limiter token back at once, so by itself it would let a client grow threads
without bound by timing out slow calls.

Here sync user code runs in at most `max_threads()` threads at once (anyio's default thread
limit, 40 unless you change it), and a thread keeps its slot until it really ends, abandoned or
not. A call that finds every slot taken waits for one, like any saturated thread pool (its
`Timeout` still applies); when every slot is held by an abandoned thread, nothing that is still
waited for will free one soon, so the call is refused at once (`Rejected`, "try again later")
without starting a thread. Each request counts its own abandoned threads in
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
from anyio.lowlevel import RunVar

from toolweave.core.context import Context
from toolweave.core.errors import Rejected

ABANDONED_THREADS = "toolweave.abandoned_threads"
"""`ctx.state` key: how many worker threads of this request were abandoned on cancellation."""
BUSY_MESSAGE = "The server is busy: earlier calls that were cancelled are still running; try again later"
_RECHECK = 0.05
"""Seconds between checks while an abandoned thread holds a slot (it ends without telling the loop)."""
_IDLE_RECHECK = 1.0
"""Seconds between checks otherwise (a live call frees its slot on its own loop and wakes waiters)."""

_lock = threading.Lock()
_held = 0  # slots held: calls waiting for or running in a thread, and abandoned threads still running
_abandoned = 0
_freed: RunVar[anyio.Event] = RunVar("toolweave_thread_slot_freed")


def max_threads() -> int:
    """How many threads may run sync user code at once: anyio's default thread limit (in a loop)."""
    return int(anyio.to_thread.current_default_thread_limiter().total_tokens)


def busy_threads() -> int:
    """How many slots are taken right now: calls in (or on their way to) a thread, and abandoned threads."""
    return _held


def abandoned_threads() -> int:
    """How many of those belong to calls that were cancelled (their results will be discarded)."""
    return _abandoned


async def run_in_worker(fn: Callable[..., Any], arguments: dict[str, Any], ctx: Context | None = None) -> Any:
    """`fn(**arguments)` in a worker thread, once a slot is free; on cancellation the thread is
    abandoned and keeps its slot until it ends (counted in `ctx`, the request it runs for, if any;
    a server's own work, such as a reload's build, has none).

    Raises:
        Rejected: every slot is held by an abandoned thread (the function did not run).
    """
    await _take_slot()
    thread = _Thread()
    try:
        value = await anyio.to_thread.run_sync(thread.runner(fn, arguments), abandon_on_cancel=True)
    except BaseException as error:
        if isinstance(error, anyio.get_cancelled_exc_class()) and thread.abandon():
            if ctx is not None:
                ctx.state[ABANDONED_THREADS] = ctx.state.get(ABANDONED_THREADS, 0) + 1
        else:
            _give_slot()
        raise
    _give_slot()
    return value


async def _take_slot() -> None:
    global _held
    while True:
        size = max_threads()
        with _lock:
            if _held < size:
                _held += 1
                return
            stuck = _abandoned >= size
            recheck = _RECHECK if _abandoned else _IDLE_RECHECK
        if stuck:
            raise Rejected(BUSY_MESSAGE)
        with anyio.move_on_after(recheck):
            await _freed_event().wait()


def _give_slot() -> None:
    """Free a slot on the loop (a call that ended, or never reached its thread) and wake waiters."""
    global _held
    with _lock:
        _held -= 1
    _wake()


def _freed_event() -> anyio.Event:
    try:
        return _freed.get()
    except LookupError:
        event = anyio.Event()
        _freed.set(event)
        return event


def _wake() -> None:
    _freed_event().set()
    _freed.set(anyio.Event())


class _Thread:
    """One call's worker thread: not started, running, abandoned while running, or finished."""

    __slots__ = ("abandoned", "finished", "started")

    def __init__(self) -> None:
        self.abandoned = False
        self.started = False
        self.finished = False

    def runner(self, fn: Callable[..., Any], arguments: dict[str, Any]) -> Callable[[], Any]:
        def run() -> Any:
            with _lock:
                if self.abandoned:  # cancelled before the thread got to it: nothing to run
                    return None
                self.started = True
            try:
                return fn(**arguments)
            except GeneratorExit as error:
                # Set on the loop's future, it would be thrown into the awaiting coroutine, and a
                # thrown GeneratorExit closes every await below it instead of raising at the await:
                # no handler of the call would see it. As an ordinary exception it is masked.
                raise RuntimeError(f"{getattr(fn, '__name__', 'the function')}() raised GeneratorExit") from error
            finally:
                self._finish()

        return run

    def _finish(self) -> None:
        global _abandoned, _held
        with _lock:
            self.finished = True
            if self.abandoned:  # nobody waits for this call: its thread frees the slot
                _abandoned -= 1
                _held -= 1

    def abandon(self) -> bool:
        """Mark the call abandoned; True if its thread is still running user code (and keeps the slot)."""
        global _abandoned
        with _lock:
            if self.finished or self.abandoned:
                return False
            self.abandoned = True
            if not self.started:
                return False
            _abandoned += 1
        _wake()  # waiters re-check: every slot may now be held by abandoned threads
        return True
