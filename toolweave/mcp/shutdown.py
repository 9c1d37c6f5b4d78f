"""Graceful shutdown of a served server: stop taking work, let what runs finish, answer the rest.

`Drain` is SDK middleware around every inbound request. While serving it only tracks the
requests in flight (one cancel scope each); the server's tasks (a `Background`: work that
outlives the request that started it) track themselves. `drain(grace)`:

1. refuses new requests at once with a JSON-RPC error saying the server is shutting down (the
   transport stops reading or accepting as well), but for the requests that follow up running
   work (`tasks/get`, `tasks/update`, `tasks/cancel`): a task's client can still poll it to its
   end, answer its input or cancel it;
2. waits up to `grace` seconds for the requests in flight and the running tasks to finish on
   their own;
3. cancels the rest: each request answered with a JSON-RPC error naming the grace period, each
   task ended `failed` ("The server stopped before the task finished"); and waits (briefly) for
   those answers and task records to be written.

`on_signals` turns the first of the `STOP_SIGNALS` (SIGTERM, SIGINT, SIGHUP) into a drain (a second
one skips what is left of the grace period). After it the transport ends, the server's lifespan closes every upstream
session, and the SDK terminates and reaps each upstream process. A task's record outlives the
process only in a store that does (Redis): another replica then answers `tasks/get` for it.

Example:
    >>> from toolweave import Server
    >>> from toolweave.mcp.adapter import adapter_for
    >>> from toolweave.testing import connect
    >>> server = Server("demo")
    >>> _ = server.add_tool(lambda: "pong", name="ping")
    >>> drain = Drain()
    >>> async def shut_down() -> str:
    ...     with drain.installed(adapter_for(server).lowlevel):
    ...         async with connect(server) as client:
    ...             await drain.drain(10)  # what SIGTERM does; nothing is in flight, so at once
    ...             try:
    ...                 await client.call_tool("ping", {})
    ...             except MCPError as error:
    ...                 return error.error.message
    >>> anyio.run(shut_down)
    'the server is shutting down and takes no new requests'
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import anyio
import mcp.types as mt
from mcp import MCPError
from opentelemetry import metrics, trace

from toolweave.core.threads import busy_threads

logger = logging.getLogger("toolweave.mcp")
SHUTTING_DOWN = mt.CONNECTION_CLOSED
"""The JSON-RPC code of a request refused or cut short by shutdown (-32000, "connection closed")."""
REFUSED_NEW = "the server is shutting down and takes no new requests"
"""The message of a request refused because the server is shutting down."""
CUT_SHORT = "the server shut down before this request finished"
"""The start of the message of a request cut short by shutdown (the reason follows)."""
FLUSH_SECONDS = 2.0
"""How long cancelled requests get to write their answers, and stopped tasks their records."""
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a served server gracefully. SIGHUP is among them: a closed terminal or a
dropped SSH session sends it, and its default action ended the process at once, cutting off the
calls in flight unanswered (and, for `serve --workers`, the parent before its workers)."""


class Background(Protocol):
    """Work a server runs beyond the request that started it (`TaskService`: its tasks)."""

    follow_ups: frozenset[str]
    """The methods of requests about that work (still answered while the server drains)."""

    @property
    def working(self) -> int:
        """How much of it runs now."""
        ...

    async def idle(self) -> None:
        """Return once none of it runs."""
        ...

    def stop(self) -> int:
        """End what still runs as a server that stops does (each end recorded by the time
        `idle` returns); how many there were."""
        ...


class Drain:
    """The requests in flight on a served server (and its `background` work, if given), and how
    they end when it shuts down."""

    def __init__(self, background: Background | None = None) -> None:
        self._background = background
        self._follow_ups = background.follow_ups if background is not None else frozenset()
        self._running: dict[anyio.CancelScope, Any] = {}
        self._idle: anyio.Event | None = None
        self._owed: set[Any] | None = None
        self._paid: anyio.Event | None = None
        self._forced = anyio.Event()
        self.closing = False
        self.grace: float | None = None
        self.cancelled = 0
        """How many requests were cancelled at the end of the grace period."""
        self.stopped = 0
        """How many background tasks were ended `failed` at the end of the grace period."""

    @property
    def in_flight(self) -> int:
        """How many requests are running now."""
        return len(self._running)

    @contextmanager
    def installed(self, lowlevel: Any) -> Iterator[Drain]:
        """Track `lowlevel`'s requests (outermost but for the SDK's tracing span) while the block runs."""
        lowlevel.middleware.insert(1, self)
        try:
            yield self
        finally:
            lowlevel.middleware.remove(self)

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is None:  # a notification (e.g. `notifications/cancelled`) always passes
            return await call_next(ctx)
        if self.closing:
            if self._owed is not None:
                self._owed.add(ctx.request_id)
            if ctx.method not in self._follow_ups:
                raise MCPError(SHUTTING_DOWN, REFUSED_NEW)
        with anyio.CancelScope() as scope:
            self._running[scope] = ctx.request_id
            try:
                return await call_next(ctx)
            finally:
                del self._running[scope]
                if not self._running and self._idle is not None:
                    self._idle.set()
        why = "a second signal cut the grace period short" if self._forced.is_set() else f"grace period {self.grace:g}s"
        raise MCPError(SHUTTING_DOWN, f"{CUT_SHORT} ({why})")

    async def _until_idle(self) -> None:
        """Return once no request is in flight and no background work runs."""
        while True:
            while self._running:
                self._idle = anyio.Event()
                await self._idle.wait()
            if self._background is None or not self._background.working:
                return
            await self._background.idle()  # a request may start a task, a task's client may poll it

    async def _until_written(self) -> None:
        while self._owed:
            self._paid = anyio.Event()
            await self._paid.wait()

    def track_answers(self) -> None:
        """Have `drain` wait until each request in flight has its answer written (the transport
        reports each message it writes to `written`); a transport that stops at once needs it."""
        self._owed = set()

    def written(self, message: Any) -> None:
        """The transport wrote `message` (a JSON-RPC message)."""
        if self._owed:
            self._owed.discard(getattr(message, "id", None))
            if not self._owed and self._paid is not None:
                self._paid.set()

    def force(self) -> None:
        """End the grace period now (a second signal)."""
        self._forced.set()

    async def drain(self, grace: float) -> None:
        """Refuse new requests, wait up to `grace` seconds for those in flight and the background
        work, cancel the requests and stop the work still running."""
        self.closing = True
        self.grace = grace
        if self._owed is not None:
            self._owed.update(self._running.values())
        working = self._background.working if self._background is not None else 0
        logger.info(
            "shutting down: %d request(s) and %d task(s) in flight, %gs grace period",
            len(self._running),
            working,
            grace,
        )
        with anyio.move_on_after(grace):
            async with anyio.create_task_group() as tasks:

                async def forced() -> None:
                    await self._forced.wait()
                    tasks.cancel_scope.cancel()

                tasks.start_soon(forced)
                await self._until_idle()
                tasks.cancel_scope.cancel()
        for scope in list(self._running):
            scope.cancel()
            self.cancelled += 1
        self.stopped = self._background.stop() if self._background is not None else 0
        if self.cancelled or self.stopped:
            when = "when a second signal cut the grace period short" if self._forced.is_set() else f"after {grace:g}s"
            logger.warning(
                "shutting down: cancelled %d request(s) and failed %d task(s) still running %s",
                self.cancelled,
                self.stopped,
                when,
            )
        with anyio.move_on_after(FLUSH_SECONDS):
            await self._until_idle()
            await self._until_written()


@contextmanager
def stopped_like_ctrl_c() -> Iterator[None]:
    """While the block runs, every one of the `STOP_SIGNALS` raises `KeyboardInterrupt` as SIGINT
    does, until serving takes them over (`on_signals`), for the start of a server.

    Starting takes a while (upstreams to connect, up to their `connect_timeout`), and SIGTERM's
    default action ended the process there at once: exit status -15, and an upstream process
    being started left running (the SDK starts it in a session of its own, which a supervisor's
    `kill -- -PGID` does not reach). Interrupted, the start unwinds as it does on Ctrl-C,
    closing what it opened; a stop signal after the first is ignored while it does. Main thread
    only (elsewhere the block runs as it is).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    interrupted = False

    def interrupt(signum: int, frame: Any) -> None:
        nonlocal interrupted
        if interrupted:  # the start unwinds already (a worker hears one stop twice): let it close what it opened
            return
        interrupted = True
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, interrupt) for sig in STOP_SIGNALS if sig != signal.SIGINT}
    try:
        yield
    except KeyboardInterrupt as stop:
        logger.warning("received %s while starting: stopping", stop.args[0] if stop.args else "SIGINT")
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


WORKER_SIGNAL_ECHO = 2.0
"""Seconds in which a worker takes another signal for the same stop (see `on_signals`)."""


async def on_signals(
    drain: Drain,
    grace: float,
    then: Callable[[], None],
    at_once: Callable[[], None] | None = None,
    *,
    echo_within: float = 0.0,
) -> None:
    """On the first of the `STOP_SIGNALS` call `at_once` (stop accepting connections), drain (`grace`
    seconds), then call `then` (stop the transport); a second signal ends the grace period. Does
    nothing off the main thread, where signals cannot be received.

    `echo_within`: seconds after the first signal in which another is the same stop, not a second
    one. A worker of `serve --workers` hears one stop twice: from its process group (Ctrl-C in a
    terminal, `kill -- -PGID`, systemd's control-group stop) and from the parent forwarding it.
    """
    if threading.current_thread() is not threading.main_thread():
        await anyio.sleep_forever()
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async for received in signals:
            logger.warning("received %s: shutting down gracefully", signal.Signals(received).name)
            break
        echoes_until = anyio.current_time() + echo_within
        if at_once is not None:
            at_once()
        async with anyio.create_task_group() as tasks:

            async def second() -> None:
                async for received in signals:
                    name = signal.Signals(received).name
                    if anyio.current_time() < echoes_until:
                        logger.info("received %s again within %gs: the same stop", name, echo_within)
                        continue
                    logger.warning("received %s again: cancelling what is left", name)
                    drain.force()

            tasks.start_soon(second)
            await drain.drain(grace)
            tasks.cancel_scope.cancel()
    then()


def exit_past_running_threads() -> None:
    """End the process now if sync user code still runs in worker threads once serving has ended.

    A thread cannot be interrupted, and the interpreter waits at exit for every worker thread:
    a sync tool still running when the grace period ended would keep the process alive as long
    as it runs, forever if it never returns. The entry points that own the process (`Server.run`,
    `toolweave serve`) call this once serving has ended: with such threads left it logs how many,
    flushes the telemetry providers and the logs, and exits with status 0 without them (exit
    handlers do not run; they would only have run once the threads ended).
    """
    left = busy_threads()
    if not left:
        return
    logger.warning(
        "%d worker thread(s) still run sync code (a tool's, a reload's build) past the grace period; "
        "the process exits without them",
        left,
    )
    for provider in (trace.get_tracer_provider(), metrics.get_meter_provider()):
        flush = getattr(provider, "force_flush", None)  # (an SDK provider; the API's no-op has none)
        if flush is not None:
            flush(int(FLUSH_SECONDS * 1000))
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
