"""A server's lifespan: what it holds open while it runs (remote sessions, mounted servers').

`async with server:` (or `server.lifespan()`) starts everything the server needs that outlives
one call: each `RemoteServer` opens its persistent session and keeps it up, and every mounted
server is started too, in parallel. Serving (`server.run()`, `server.http_app()`,
`mcp.Client(server.as_mcp())`) enters it for you. Entering a running server again only counts
the user, once the first entry has started everything; the first entry's exit waits for the
other users to leave, then stops (a cancelled first entry stops at once).

A running lifespan belongs to the event loop that entered it first: what it holds open (a remote's
session, a mounted server's) answers only there. Entering it, or using a server that holds a
remote, from another thread's event loop while it runs raises a `RuntimeError` saying so, instead
of waiting on a loop that will never wake it (sync code in a thread pool calling one server: give
the threads a `BlockingPortal` into the loop that runs it).

A server mounted in two parents runs while either does: when the parent that started it stops
(or unmounts it), the other parent's lifespan starts it again (a remote reconnects).

An in-process use (`list_tools`, `call_tool`, ...) of a server that is not running and holds a
remote server at some depth enters the lifespan for that use alone (`Lifespan.started_for`); one
that finds nothing while a remote is down names it (`Lifespan.naming_down_remotes`).

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

import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol, TypeVar

import anyio
from anyio.abc import TaskGroup

logger = logging.getLogger("toolweave.server")
P = ParamSpec("P")
T = TypeVar("T")


class Held(Protocol):
    """A server a lifespan starts and stops with its own."""

    name: str

    def lifespan(self) -> AbstractAsyncContextManager[Any]: ...

    async def until_stopped(self) -> None:
        """Return once the lifespan running now has stopped (at once if none is)."""
        ...


class Runner(Held, Protocol):
    """The server a lifespan belongs to."""

    def held_children(self) -> Sequence[Held]:
        """The servers started and stopped with it."""
        ...

    def remotes(self) -> Sequence[Held]:
        """The remote servers it is, mounts or imports from, at any depth."""
        ...


class Topology:
    """A version of every server's mounts and imports, bumped by any change anywhere."""

    version = 0

    @classmethod
    def changed(cls) -> None:
        cls.version += 1


@dataclass(slots=True)
class _Running:
    tasks: TaskGroup
    users: int = 1
    thread: int = field(default_factory=threading.get_ident)
    """The thread whose event loop entered first (what the lifespan holds answers only there)."""
    started: anyio.Event = field(default_factory=anyio.Event)
    """Set once the first entry has started everything, or stopped before it had (later entries wait for it)."""
    idle: anyio.Event | None = None
    """Set when the last of the nested users leaves (made while the first entry waits for them)."""
    ended: anyio.Event = field(default_factory=anyio.Event)
    """Set once the run has stopped, what it started included."""

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
        server: The server it runs, with the servers it starts and stops with its own
            (`held_children()`: mounted and imported-from) and the remote ones it holds.
        hold_open: Opens the server's own long-lived resources in the lifespan's task group.
    """

    def __init__(self, server: Runner, hold_open: Callable[[TaskGroup], Awaitable[None]]) -> None:
        self._server = server
        self._hold_open = hold_open
        self._running: _Running | None = None
        self._holds: dict[int, anyio.CancelScope] = {}
        self._holds_remote = (-1, False)  # (topology version, whether a remote is held at any depth)

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
        while running is not None:  # join it, once started (a start that was cancelled: start anew)
            self._on_its_loop(running)
            running.users += 1
            try:
                await running.started.wait()
                if self._running is running:
                    yield
                    return
            finally:
                running.leave()
            running = self._running
        ended = anyio.Event()
        try:
            async with anyio.create_task_group() as tasks:
                running = self._running = _Running(tasks, ended=ended)
                try:
                    ready = [self.start(child) for child in self._server.held_children()]
                    await self._hold_open(tasks)
                    for event in ready:
                        if event is not None:
                            await event.wait()
                    running.started.set()
                    yield
                    await running.wait_for_others()
                finally:
                    self._running = None
                    running.started.set()  # (wakes entries waiting for a start that did not finish)
                    self._holds.clear()
                    tasks.cancel_scope.cancel()
        finally:
            ended.set()

    async def until_stopped(self) -> None:
        """Return once the run active now has stopped, what it started included (at once if none is)."""
        running = self._running
        if running is not None:
            await running.ended.wait()

    # -- in-process use of a server that is not running ----------------------------------------

    def needs_start(self) -> bool:
        """Whether an in-process use must connect remote servers first (not running, holds one);
        the walk over the mount tree is redone only after a mount, unmount or import anywhere."""
        version, holds = self._holds_remote
        if version != Topology.version:
            holds = bool(self._server.remotes())
            self._holds_remote = (Topology.version, holds)
        if not holds:
            return False
        running = self._running
        if running is None:
            return True
        self._on_its_loop(running)
        return not running.started.is_set()

    def _on_its_loop(self, running: _Running) -> None:
        """`RuntimeError` unless the caller runs on the event loop `running` belongs to."""
        if running.thread != threading.get_ident():
            raise RuntimeError(
                f"server {self._server.name!r} runs on the event loop of another thread, where what it holds "
                "open answers: use it from that loop (from other threads, through an anyio BlockingPortal)"
            )

    async def started_for(self, use: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """`use(...)` with the lifespan entered for its duration (remote sessions connected first).

        An in-process call on a server that is not running and holds remote servers connects them
        for that call and closes them after it; `async with server:` keeps them open instead.
        """
        names = ", ".join(repr(remote.name) for remote in self._server.remotes())
        logger.info(
            "server %r is not running: connecting %s for this call (use `async with server:` to keep "
            "the sessions open)",
            self._server.name,
            names,
        )
        failure: Exception | None = None
        async with self.enter():
            try:
                result = await use(*args, **kwargs)
            except Exception as error:  # raised here, not wrapped in the lifespan's exception group
                failure = error
        if failure is not None:
            raise failure
        return result

    def down_remotes(self) -> list[str]:
        """The remote servers held here that have no session now, as `'name' (state: why)`."""
        found = []
        for remote in self._server.remotes():
            state = getattr(remote, "state", "up")
            if state != "up":
                why = getattr(remote, "last_error", None)
                found.append(f"{remote.name!r} ({state}{': ' + why if why else ''})")
        return found

    def naming_down_remotes(self, error: Exception, key: str) -> None:
        """Raise, instead of the unknown-error `error` for `key`, one that names the remote servers
        that are down (it may be missing because of them), if any are; the one place for every
        kind of in-process use (called from an `except`, so a found component costs nothing)."""
        down = self.down_remotes()
        if down:
            raise type(error)(key, f"; these remote servers are down: {', '.join(down)}") from error


async def _hold(child: Held, ready: anyio.Event, scope: anyio.CancelScope) -> None:
    """Keep `child` started until cancelled (or `scope` is); set `ready` once it is (or failed to start).

    Held while another lifespan runs it (a second parent's, a user's `async with`), `child` stops
    when that one leaves: it is started again here, so a parent still running keeps its child.
    """
    try:
        with scope:
            while True:
                async with child.lifespan():
                    ready.set()
                    await child.until_stopped()
    finally:
        ready.set()
