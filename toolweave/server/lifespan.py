"""A server's lifespan: what it holds open while it runs (remote sessions, mounted servers').

`async with server:` (or `server.lifespan()`) starts everything the server needs that outlives
one call: each `RemoteServer` opens its persistent session and keeps it up, and every mounted
server is started too, in parallel. Serving (`server.run()`, `server.http_app()`,
`mcp.Client(server.as_mcp())`) enters it for you. Entering a running server again only counts
the user, once the first entry has started everything; the first entry's exit waits for the
other users to leave, then stops (a cancelled first entry stops at once).

Example:
    >>> import anyio
    >>> from toolweave.server.server import Server
    >>> gateway = Server("gateway")
    >>> async def check() -> bool:
    ...     async with gateway:       # with a RemoteServer mounted: its session is up in here
    ...         return gateway.running
    >>> anyio.run(check), gateway.running
    (True, False)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from anyio.abc import TaskGroup


class Held(Protocol):
    """A server a lifespan starts and stops with its own."""

    name: str

    def lifespan(self) -> AbstractAsyncContextManager[Any]: ...


@dataclass(slots=True)
class _Running:
    tasks: TaskGroup
    users: int = 1
    started: anyio.Event = field(default_factory=anyio.Event)
    """Set once the first entry has started everything (later entries wait for it)."""
    idle: anyio.Event | None = None
    """Set when the last of the nested users leaves (made while the first entry waits for them)."""

    def leave(self) -> None:
        self.users -= 1
        if self.users == 1 and self.idle is not None:
            self.idle.set()

    async def wait_for_others(self) -> None:
        """Wait until the first entry is the only user left."""
        while self.users > 1:
            self.idle = anyio.Event()
            await self.idle.wait()


class Lifespan:
    """The lifespan of one server.

    Args:
        children: The servers started and stopped with this one (mounted and imported-from).
        hold_open: Opens the server's own long-lived resources in the lifespan's task group.
    """

    def __init__(
        self, children: Callable[[], Sequence[Held]], hold_open: Callable[[TaskGroup], Awaitable[None]]
    ) -> None:
        self._children = children
        self._hold_open = hold_open
        self._running: _Running | None = None
        self._holds: dict[int, anyio.CancelScope] = {}

    @property
    def running(self) -> bool:
        """Whether the lifespan is active."""
        return self._running is not None

    @property
    def started(self) -> bool:
        """Whether the lifespan is active and everything it starts is up (or failed to start)."""
        return self._running is not None and self._running.started.is_set()

    def start(self, child: Held) -> anyio.Event | None:
        """Start `child` too, if this lifespan is running and does not hold it yet; the event is
        set once it is up."""
        if self._running is None or id(child) in self._holds:
            return None
        ready = anyio.Event()
        scope = self._holds[id(child)] = anyio.CancelScope()
        self._running.tasks.start_soon(_hold, child, ready, scope, name=f"toolweave lifespan of {child.name!r}")
        return ready

    def stop(self, child: Held) -> None:
        """Stop holding `child` (started by this lifespan); it stops unless someone else holds it."""
        scope = self._holds.pop(id(child), None)
        if scope is not None:
            scope.cancel()

    @asynccontextmanager
    async def enter(self) -> AsyncIterator[None]:
        """Run the server (and what it holds) for the duration of the block."""
        running = self._running
        if running is not None:
            running.users += 1
            try:
                await running.started.wait()
                yield
            finally:
                running.leave()
            return
        async with anyio.create_task_group() as tasks:
            running = self._running = _Running(tasks)
            try:
                ready = [self.start(child) for child in self._children()]
                await self._hold_open(tasks)
                for event in ready:
                    if event is not None:
                        await event.wait()
                running.started.set()
                yield
                await running.wait_for_others()
            finally:
                self._running = None
                self._holds.clear()
                tasks.cancel_scope.cancel()


async def _hold(child: Held, ready: anyio.Event, scope: anyio.CancelScope) -> None:
    """Keep `child` started until cancelled (or `scope` is); set `ready` once it is (or failed to start)."""
    try:
        with scope:
            async with child.lifespan():
                ready.set()
                await anyio.sleep_forever()
    finally:
        ready.set()
