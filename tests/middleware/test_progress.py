"""`Progress`: throttled, increasing progress, final value delivered, nothing after the response."""

from __future__ import annotations

import math

import anyio
import anyio.lowlevel
import pytest

from toolweave import Context, Server
from toolweave.middleware import Progress
from toolweave.testing import connect

RATE = 20.0


def _server(progress: Progress) -> Server:
    server = Server("progress", middleware=[progress])

    @server.tool
    async def crunch(ctx: Context, updates: int = 10_000) -> str:
        for step in range(1, updates + 1):
            await ctx.report_progress(step, updates)
            if step % 100 == 0:
                await anyio.lowlevel.checkpoint()  # let the transport breathe, as real work would
        return "crunched"

    @server.tool
    async def wobbly(ctx: Context) -> str:
        for value in (1, 3, 2, 3, float("nan"), 5):
            await ctx.report_progress(value)
        return "done"

    @server.tool
    async def quiet(ctx: Context, seconds: float = 0.3) -> str:
        await anyio.sleep(seconds)
        return "done"

    return server


class Received:
    def __init__(self) -> None:
        self.values: list[float] = []
        self.messages: list[str | None] = []
        self.arrived = anyio.Event()

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.values.append(progress)
        self.messages.append(message)
        self.arrived.set()
        self.arrived = anyio.Event()

    async def wait_for(self, value: float) -> None:
        while value not in self.values:
            await self.arrived.wait()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_ten_thousand_updates_arrive_throttled_with_the_final_value(mode: str) -> None:
    received = Received()
    async with connect(_server(Progress(max_rate=RATE)), mode=mode) as client:
        start = anyio.current_time()
        result = await client.call_tool("crunch", {}, progress_callback=received)
        elapsed = anyio.current_time() - start
    assert result.content[0].text == "crunched"
    assert received.values[-1] == 10_000
    # one send per interval at most, plus the final value
    assert len(received.values) <= math.floor(elapsed * RATE) + 2
    assert received.values == sorted(set(received.values))


async def test_values_that_do_not_increase_are_dropped() -> None:
    received = Received()
    async with connect(_server(Progress(max_rate=1000)), mode="legacy") as client:
        await client.call_tool("wobbly", {}, progress_callback=received)
    assert received.values == sorted(set(received.values))
    assert received.values[-1] == 5
    assert 2 not in received.values


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_nothing_arrives_after_the_response(mode: str) -> None:
    received = Received()
    async with connect(_server(Progress(max_rate=5, heartbeat=0.02)), mode=mode) as client:
        await client.call_tool("crunch", {"updates": 500}, progress_callback=received)
        count = len(received.values)
        await anyio.sleep(0.15)  # a leaked sender or heartbeat would deliver in this window
        assert len(received.values) == count


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_heartbeat_keeps_a_silent_call_alive_with_increasing_values(mode: str) -> None:
    received = Received()
    async with connect(_server(Progress(max_rate=100, heartbeat=0.05)), mode=mode) as client:
        await client.call_tool("quiet", {"seconds": 0.3}, progress_callback=received)
    assert len(received.values) >= 2
    assert set(received.messages) == {"working"}
    assert received.values == sorted(set(received.values))


async def test_without_a_progress_request_the_tool_runs_unchanged() -> None:
    async with connect(_server(Progress(heartbeat=0.01)), mode="legacy") as client:
        result = await client.call_tool("crunch", {"updates": 50})
    assert result.content[0].text == "crunched"


async def test_the_original_sink_is_restored_after_the_call() -> None:
    sent: list[float] = []

    async def sink(progress: float, total: float | None, message: str | None) -> None:
        sent.append(progress)

    server = _server(Progress(max_rate=1))
    ctx = Context(server=server, progress_sink=sink)
    await server.call_tool("crunch", {"updates": 3}, ctx=ctx)
    assert ctx.progress_sink is sink
    assert sent == [1, 3]


async def test_a_failing_call_still_delivers_its_last_value() -> None:
    sent: list[float] = []

    async def sink(progress: float, total: float | None, message: str | None) -> None:
        sent.append(progress)

    server = Server("fails", middleware=[Progress(max_rate=1)])

    @server.tool
    async def halfway(ctx: Context) -> str:
        for step in (1, 2, 3):
            await ctx.report_progress(step)
        raise RuntimeError("disk full")

    result = await server.call_tool("halfway", ctx=Context(server=server, progress_sink=sink))
    assert result.is_error
    assert sent == [1, 3]


async def test_heartbeat_delivers_a_held_back_value_while_the_call_runs() -> None:
    received = Received()
    server = Server("held", middleware=[Progress(max_rate=10, heartbeat=0.05)])

    @server.tool
    async def staged(ctx: Context) -> str:
        await ctx.report_progress(1)
        await ctx.report_progress(2)  # within the interval: held back
        with anyio.fail_after(5):  # only the heartbeat task can deliver it before we return
            await received.wait_for(2)
        return "seen"

    async with connect(server, mode="legacy") as client:
        result = await client.call_tool("staged", {}, progress_callback=received)
    assert result.content[0].text == "seen"
    assert received.values == [1, 2]
