"""A server's lifespan: what it holds open while it runs (remote sessions, mounted servers').

`async with server:` (or `server.lifespan()`) starts everything the server needs that outlives
one call: each `RemoteServer` opens its persistent session and keeps it up, and every mounted
server is started too, in parallel. Serving (`server.run()`, `server.http_app()`,
`mcp.Client(server.as_mcp())`) enters it for you. Entering a running server again only counts
the user; the first entry starts, its exit stops (nested entries must end before it).

Example:
    async with gateway:
        await gateway.call_tool("gh_search", {"q": "anyio"})
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
from anyio.abc import TaskGroup

if TYPE_CHECKING:
    from toolweave.server.server import Server


@dataclass(slots=True)
class Running:
    """The state of a started server: the task group its resources live in, and its users."""

    tasks: TaskGroup
    users: int = 1


async def hold(child: Server, ready: anyio.Event) -> None:
    """Keep `child` started until cancelled; set `ready` once it is (or failed to start)."""
    try:
        async with child.lifespan():
            ready.set()
            await anyio.sleep_forever()
    finally:
        ready.set()


def start_child(running: Running, child: Server) -> anyio.Event:
    """Start `child` inside a running parent; the event is set when it is up."""
    ready = anyio.Event()
    running.tasks.start_soon(hold, child, ready, name=f"toolweave lifespan of {child.name!r}")
    return ready


@asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[Server]:
    """Run `server` (and what it mounts) for the duration of the block."""
    running = server._running
    if running is not None:
        running.users += 1
        try:
            yield server
        finally:
            running.users -= 1
        return
    async with anyio.create_task_group() as tasks:
        running = server._running = Running(tasks)
        try:
            ready = [start_child(running, child) for child in server._held_children()]
            await server._open(tasks)
            for event in ready:
                await event.wait()
            yield server
        finally:
            server._running = None
            tasks.cancel_scope.cancel()
