"""Timed-out sync calls cannot grow threads without bound: abandoned threads are counted until they
end, and past the cap new sync calls are refused."""

from __future__ import annotations

import threading

import anyio

from toolweave import Server
from toolweave.core.threads import MAX_THREADS, abandoned_threads, busy_threads
from toolweave.middleware import Timeout


async def test_a_burst_of_timed_out_sync_calls_leaves_a_bounded_number_of_threads() -> None:
    release = threading.Event()
    server = Server("slow", middleware=[Timeout(0.2)])

    @server.tool
    def stuck(n: int) -> int:
        """Block until released (a C call that ignores cancellation)."""
        release.wait(timeout=30)
        return n

    baseline = threading.active_count()
    peak = baseline
    texts: list[str] = []

    async def call(n: int) -> None:
        nonlocal peak
        result = await server.call_tool("stuck", {"n": n})
        texts.append(result.text)
        peak = max(peak, threading.active_count())

    try:
        async with anyio.create_task_group() as tasks:
            for n in range(120):
                tasks.start_soon(call, n)
        # a second wave while the first wave's threads are still stuck: refused, not started
        async with anyio.create_task_group() as tasks:
            for n in range(20):
                tasks.start_soon(call, n)
        # the cap is reached; most busy threads belong to calls that timed out (the rest are the
        # last ones started, whose calls were cancelled while they were being handed their work)
        assert busy_threads() == MAX_THREADS and abandoned_threads() >= MAX_THREADS // 2
        # the busy ones, plus at most one wave of anyio's (40) idle workers that refused to start
        assert peak - baseline <= MAX_THREADS + 40
        timed_out = sum("timed out after 0.2s" in text for text in texts)
        refused = sum(text.startswith("The server is busy") for text in texts)
        assert timed_out + refused == 140 and timed_out >= MAX_THREADS and refused >= 1
    finally:
        release.set()
    with anyio.fail_after(10):
        while busy_threads():  # every abandoned thread is uncounted when it ends  # noqa: ASYNC110
            await anyio.sleep(0.02)
    assert (await server.call_tool("stuck", {"n": 7})).text == "7"  # serving sync calls again
