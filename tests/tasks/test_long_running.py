"""A 10-second tool is answered with a task in under 50 ms and polled to its result.

In the default run the tool is told to finish early (it waits on an event for at most its
`seconds`), so the test proves the answer came while the tool was still running without waiting
10 s; the `slow` run lets it take the whole 10 seconds.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import mcp
import pytest

from tests.serving import serving
from tests.tasks.servers import create, get, until
from toolweave import Server
from toolweave.tasks import TasksExtension, configure_tasks

SECONDS = 10.0
ANSWERED_WITHIN = 0.05


class Run:
    """What the long tool did, and the event that ends it early."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.finish = anyio.Event()
        self.ended = False


def long_server(run: Run) -> Server:
    server = Server("ci")
    configure_tasks(server, poll_interval=0.05)

    @server.tool(task_support="optional")
    async def pipeline(seconds: float) -> str:
        """Run the CI pipeline: takes `seconds` (less if the run is told to finish)."""
        run.started.set()
        with anyio.move_on_after(seconds):
            await run.finish.wait()
        run.ended = True
        return f"pipeline green after {seconds:g}s"

    return server


@asynccontextmanager
async def client_of(server: Server, transport: str) -> AsyncIterator[mcp.Client]:
    """An official client that takes tasks, in memory or over streamable HTTP."""
    if transport == "memory":
        async with mcp.Client(server.as_mcp(), extensions=[TasksExtension()]) as client:
            yield client
    else:
        async with serving(server.http_app()) as url, mcp.Client(f"{url}/mcp", extensions=[TasksExtension()]) as client:
            yield client


async def answered_with_a_task(client: mcp.Client) -> tuple[str, float]:
    """Call the 10-second tool: its task id, and how long the answer took."""
    started = time.perf_counter()
    created = await create(client, "pipeline", {"seconds": SECONDS})
    return created.task_id, time.perf_counter() - started


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_a_10_second_tool_is_answered_with_a_task_at_once_and_polled_to_its_result(transport: str) -> None:
    run = Run()
    async with client_of(long_server(run), transport) as client:
        task_id, took = await answered_with_a_task(client)
        await run.started.wait()
        working = await get(client, task_id)
        still_running = not run.ended
        run.finish.set()
        done = await until(client, task_id, "completed", "failed", "cancelled")
    assert took < ANSWERED_WITHIN, f"the task answer took {took * 1000:.0f} ms"
    assert still_running and working.status == "working"
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "pipeline green after 10s"


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_a_tool_that_really_takes_10_seconds_is_polled_to_its_result(transport: str) -> None:
    run = Run()
    async with client_of(long_server(run), transport) as client:
        began = time.perf_counter()
        task_id, took = await answered_with_a_task(client)
        with anyio.fail_after(SECONDS + 5):
            while (state := await get(client, task_id)).status == "working":  # noqa: ASYNC110 (polling is the point)
                await anyio.sleep(0.5)
        lasted = time.perf_counter() - began
    assert took < ANSWERED_WITHIN, f"the task answer took {took * 1000:.0f} ms"
    assert lasted >= SECONDS and state.status == "completed" and state.result is not None
    assert state.result["content"][0]["text"] == "pipeline green after 10s" and run.ended
