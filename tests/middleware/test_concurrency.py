"""`ConcurrencyLimit`: a bulkhead observed with an in-flight counter; waiting and rejection."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolweave import Server
from toolweave.middleware import ConcurrencyLimit
from toolweave.testing import connect


class Gauge:
    """Counts calls in flight and remembers the most seen at once."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0
        self.changed = anyio.Event()

    def enter(self) -> None:
        self.now += 1
        self.most = max(self.most, self.now)
        self.changed.set()
        self.changed = anyio.Event()

    async def reach(self, count: int) -> None:
        while self.now < count:
            await self.changed.wait()


def _server(limit: ConcurrencyLimit, gauge: Gauge, release: anyio.Event | None = None) -> Server:
    server = Server("bulkhead", middleware=[limit])

    @server.tool
    async def work(seconds: float = 0.02) -> str:
        gauge.enter()
        try:
            if release is not None:
                await release.wait()
            else:
                await anyio.sleep(seconds)
        finally:
            gauge.now -= 1
        return "done"

    @server.tool
    async def other() -> str:
        return "other"

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_no_more_than_the_limit_run_at_once_and_the_rest_wait(mode: str) -> None:
    gauge = Gauge()
    limit = ConcurrencyLimit(3, wait=10)
    results: list[Any] = []
    async with connect(_server(limit, gauge), mode=mode) as client:

        async def call() -> None:
            results.append(await client.call_tool("work", {}))

        async with anyio.create_task_group() as tasks:
            for _ in range(10):
                tasks.start_soon(call)
    assert gauge.most == 3
    assert [r.is_error for r in results] == [False] * 10
    assert limit.in_flight == 0


async def test_excess_calls_are_rejected_when_they_may_not_wait() -> None:
    gauge, release = Gauge(), anyio.Event()
    limit = ConcurrencyLimit(2, wait=0)
    server = _server(limit, gauge, release)
    async with anyio.create_task_group() as tasks:
        for _ in range(2):
            tasks.start_soon(server.call_tool, "work")
        await gauge.reach(2)
        rejected = await server.call_tool("work")
        release.set()
    assert rejected.is_error
    assert rejected.text == "Too many concurrent calls of tool 'work' (limit 2); try again later"
    assert limit.rejected == 1 and limit.in_flight == 0


async def test_a_waiting_call_is_rejected_after_the_wait_bound() -> None:
    gauge, release = Gauge(), anyio.Event()
    limit = ConcurrencyLimit(1, wait=0.02)
    server = _server(limit, gauge, release)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.call_tool, "work")
        await gauge.reach(1)
        with anyio.fail_after(5):
            rejected = await server.call_tool("work")
        release.set()
    assert rejected.is_error and limit.rejected == 1


async def test_per_tool_pools_are_separate_from_the_shared_one() -> None:
    gauge, release = Gauge(), anyio.Event()
    limit = ConcurrencyLimit(1, per_tool={"work": 5}, wait=0)
    server = _server(limit, gauge, release)
    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(server.call_tool, "work")
        await gauge.reach(5)
        other = await server.call_tool("other")  # the shared pool of 1 is still free
        release.set()
    assert not other.is_error and gauge.most == 5


def test_pools_survive_a_recompile() -> None:
    limit = ConcurrencyLimit(2, per_tool={"work": 1})
    server = _server(limit, Gauge())
    before = [entry.chain for entry in server.catalog.entries.values()]
    server.changed()
    assert [entry.chain for entry in server.catalog.entries.values()] == before


@pytest.mark.parametrize(
    ("options", "match"),
    [({}, "needs a limit"), ({"limit": 0}, "limit must be"), ({"limit": 1, "wait": -1}, "wait")],
)
def test_bad_settings_are_refused(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ConcurrencyLimit(**options)
