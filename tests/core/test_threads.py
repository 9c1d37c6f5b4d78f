"""Timed-out sync calls cannot grow threads: an abandoned thread keeps its slot until it ends, and
while every slot is held by one, new sync calls are refused without starting a thread."""

from __future__ import annotations

import asyncio
import threading

import anyio

from toolweave import Server
from toolweave.core.threads import abandoned_threads, busy_threads
from toolweave.middleware import Timeout


def max_threads() -> int:
    """anyio's default thread limit (40 unless changed), which sync user code shares."""
    return int(anyio.to_thread.current_default_thread_limiter().total_tokens)


def worker_threads() -> set[threading.Thread]:
    """The worker threads of this event loop alive now (anyio's `WorkerThread`s serving the running
    loop; a library's background thread, or the pool of another test's loop still winding down in
    a thread, is not the thread pool this test bounds)."""
    loop = asyncio.get_running_loop()
    return {
        thread
        for thread in threading.enumerate()
        if type(thread).__name__ == "WorkerThread" and getattr(thread, "loop", None) is loop
    }


def stuck_server(release: threading.Event, seconds: float = 1.0, ran: set[threading.Thread] | None = None) -> Server:
    """A server whose one sync tool blocks until `release`; `seconds` is long enough for every call
    of a burst to reach its thread before it times out, even on a loaded machine."""
    server = Server("slow", middleware=[Timeout(seconds)])

    @server.tool
    def stuck(n: int) -> int:
        """Block until released (a C call that ignores cancellation)."""
        if ran is not None:
            ran.add(threading.current_thread())
        release.wait(timeout=30)
        return n

    return server


async def _burst(server: Server, calls: int, texts: list[str]) -> int:
    """Make `calls` concurrent calls; the most worker threads alive at once while they ran."""
    peak = len(worker_threads())

    async def call(n: int) -> None:
        nonlocal peak
        result = await server.call_tool("stuck", {"n": n})
        texts.append(result.text)
        peak = max(peak, len(worker_threads()))

    async with anyio.create_task_group() as tasks:
        for n in range(calls):
            tasks.start_soon(call, n)
    return peak


async def _drained() -> None:
    with anyio.fail_after(10):
        while busy_threads():  # an abandoned thread frees its slot when it ends  # noqa: ASYNC110
            await anyio.sleep(0.02)


async def test_a_burst_of_timed_out_sync_calls_never_holds_more_threads_than_the_limit() -> None:
    await _drained()  # slots are process-wide: abandoned threads of earlier tests end first
    release = threading.Event()
    ran: set[threading.Thread] = set()
    server = stuck_server(release, ran=ran)
    baseline = len(worker_threads())  # idle workers of earlier tests' loops, which end on their own
    texts: list[str] = []
    try:
        peak = await _burst(server, 120, texts)
        assert busy_threads() == abandoned_threads() == max_threads() == 40
        timed_out = sum("timed out after 1s" in text for text in texts)
        refused = sum(text.startswith("The server is busy") for text in texts)
        # 40 ran and timed out; the others waited for a slot, then timed out or were refused
        assert timed_out >= 40 and timed_out + refused == 120
        assert len(ran) == max_threads()  # each stuck call held a thread of its own, no more
        # a second wave while the first wave's threads are still stuck: refused at once, no thread started
        texts.clear()
        with anyio.fail_after(1):
            second = await _burst(server, 200, texts)
        assert all(text.startswith("The server is busy") for text in texts) and len(texts) == 200
        assert len(ran) == max_threads()  # the refused wave ran nothing
        assert ran <= worker_threads()  # the stuck threads are this loop's pool, counted in the peak
        assert max(peak, second) - baseline <= max_threads()
    finally:
        release.set()
    await _drained()
    assert abandoned_threads() == 0
    assert (await server.call_tool("stuck", {"n": 7})).text == "7"  # serving sync calls again


async def test_calls_beyond_the_limit_wait_for_a_slot_instead_of_being_refused() -> None:
    server = Server("busy")

    @server.tool
    def nap(n: int) -> int:
        """A short blocking call."""
        threading.Event().wait(0.05)
        return n

    results: list[str] = []

    async def call(n: int) -> None:
        results.append((await server.call_tool("nap", {"n": n})).text)

    async with anyio.create_task_group() as tasks:
        for n in range(100):
            tasks.start_soon(call, n)
    assert sorted(map(int, results)) == list(range(100))


async def test_a_sync_call_is_refused_while_every_slot_is_held_by_an_abandoned_thread() -> None:
    await _drained()  # slots are process-wide: abandoned threads of earlier tests end first
    release = threading.Event()
    server = stuck_server(release)
    texts: list[str] = []
    try:
        await _burst(server, max_threads(), texts)  # every slot now held by an abandoned thread
        refused = await server.call_tool("stuck", {"n": 1})
        assert refused.is_error and refused.text.startswith("The server is busy")
    finally:
        release.set()
    await _drained()
    assert (await server.call_tool("stuck", {"n": 2})).text == "2"


async def test_a_waiting_call_takes_the_slot_an_abandoned_thread_frees_when_it_ends() -> None:
    anyio.to_thread.current_default_thread_limiter().total_tokens = 2
    stuck, busy = threading.Event(), threading.Event()
    server = Server("two", middleware=[Timeout(0.1, per_tool={"hold": None, "quick": None})])

    @server.tool
    def wedge() -> str:
        """Times out and leaves its thread behind."""
        stuck.wait(timeout=30)
        return "late"

    @server.tool
    def hold() -> str:
        """Holds the other slot until released."""
        busy.wait(timeout=30)
        return "held"

    @server.tool
    def quick() -> str:
        """Needs a slot."""
        return "quick"

    try:
        assert "timed out" in (await server.call_tool("wedge", {})).text
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.call_tool, "hold", {})
            with anyio.fail_after(5):
                while busy_threads() < 2:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            waiting = anyio.Event()
            answers: list[str] = []

            async def call_quick() -> None:
                answers.append((await server.call_tool("quick", {})).text)
                waiting.set()

            tasks.start_soon(call_quick)
            await anyio.sleep(0.1)
            assert answers == []  # one slot abandoned, one live: the call waits, it is not refused
            stuck.set()  # the abandoned thread ends; its slot goes to the waiting call
            with anyio.fail_after(2):
                await waiting.wait()
            assert answers == ["quick"] and not busy.is_set()
            busy.set()
    finally:
        stuck.set()
        busy.set()
    await _drained()


async def test_the_limit_follows_anyios_default_thread_limiter() -> None:
    anyio.to_thread.current_default_thread_limiter().total_tokens = 3
    release = threading.Event()
    server = stuck_server(release)
    texts: list[str] = []
    try:
        await _burst(server, 10, texts)
        assert busy_threads() == abandoned_threads() == 3
    finally:
        release.set()
    await _drained()
