"""Graceful shutdown of a served server: stop taking work, let what runs finish, answer the rest.

`Drain` is SDK middleware around every inbound request. While serving it only tracks the
requests in flight (one cancel scope each). `drain(grace)`:

1. refuses new requests at once with a JSON-RPC error saying the server is shutting down (the
   transport stops reading or accepting as well);
2. waits up to `grace` seconds for the requests in flight to finish on their own;
3. cancels the rest, each answered with a JSON-RPC error naming the grace period, and waits
   (briefly) for those answers to be written.

`on_signals` turns the first SIGTERM or SIGINT into a drain (a second one skips what is left of
the grace period). After it the transport ends, the server's lifespan closes every upstream
session, and the SDK terminates and reaps each upstream process.

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
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import mcp.types as mt
from mcp import MCPError

logger = logging.getLogger("toolweave.mcp")
SHUTTING_DOWN = mt.CONNECTION_CLOSED
"""The JSON-RPC code of a request refused or cut short by shutdown (-32000, "connection closed")."""
FLUSH_SECONDS = 2.0
"""How long cancelled requests get to write their answers."""


class Drain:
    """The requests in flight on a served server, and how they end when it shuts down."""

    def __init__(self) -> None:
        self._running: dict[anyio.CancelScope, Any] = {}
        self._idle: anyio.Event | None = None
        self._owed: set[Any] | None = None
        self._paid = anyio.Event()
        self._forced = anyio.Event()
        self.closing = False
        self.grace: float | None = None
        self.cancelled = 0
        """How many requests were cancelled at the end of the grace period."""

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
            raise MCPError(SHUTTING_DOWN, "the server is shutting down and takes no new requests")
        with anyio.CancelScope() as scope:
            self._running[scope] = ctx.request_id
            try:
                return await call_next(ctx)
            finally:
                del self._running[scope]
                if not self._running and self._idle is not None:
                    self._idle.set()
        raise MCPError(
            SHUTTING_DOWN, f"the server shut down before this request finished (grace period {self.grace:g}s)"
        )

    async def _until_idle(self) -> None:
        while self._running:
            self._idle = anyio.Event()
            await self._idle.wait()

    def track_answers(self) -> None:
        """Have `drain` wait until each request in flight has its answer written (the transport
        reports each message it writes to `written`); a transport that stops at once needs it."""
        self._owed = set()

    def written(self, message: Any) -> None:
        """The transport wrote `message` (a JSON-RPC message)."""
        if self._owed:
            self._owed.discard(getattr(message, "id", None))
            if not self._owed:
                self._paid.set()

    def force(self) -> None:
        """End the grace period now (a second signal)."""
        self._forced.set()

    async def drain(self, grace: float) -> None:
        """Refuse new requests, wait up to `grace` seconds for those in flight, cancel the rest."""
        self.closing = True
        self.grace = grace
        if self._owed is not None:
            self._owed.update(self._running.values())
        logger.info("shutting down: %d request(s) in flight, %gs grace period", len(self._running), grace)
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
        if self.cancelled:
            logger.warning("shutting down: cancelled %d request(s) still running after %gs", self.cancelled, grace)
        with anyio.move_on_after(FLUSH_SECONDS):
            await self._until_idle()
            if self._owed:
                await self._paid.wait()


async def on_signals(
    drain: Drain, grace: float, then: Callable[[], None], at_once: Callable[[], None] | None = None
) -> None:
    """On the first SIGTERM or SIGINT call `at_once` (stop accepting connections), drain (`grace`
    seconds), then call `then` (stop the transport); a second signal ends the grace period. Does
    nothing off the main thread, where signals cannot be received."""
    if threading.current_thread() is not threading.main_thread():
        await anyio.sleep_forever()
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for received in signals:
            logger.warning("received %s: shutting down gracefully", signal.Signals(received).name)
            break
        if at_once is not None:
            at_once()
        async with anyio.create_task_group() as tasks:

            async def second() -> None:
                async for received in signals:
                    logger.warning("received %s again: cancelling what is left", signal.Signals(received).name)
                    drain.force()

            tasks.start_soon(second)
            await drain.drain(grace)
            tasks.cancel_scope.cancel()
    then()
