"""Middleware benchmarks: Logging + Timeout + Progress vs none, in-process, beside FastMCP's.

Each row is one in-process `call_tool` of the same async `add` tool. toolweave rows: no
middleware; the three built-ins (calls logger at its default level, so records are filtered by
`isEnabledFor`); the same with a handler attached (every call formats a record); each built-in
alone; the three with selectors that match nothing (their cost must be 0: no chain at all); a
middleware that only awaits `call_next` (what any layer costs, `Timeout`'s floor).
FastMCP 4.1.2 rows: no middleware, and its logging, timing and error-handling middleware, timed
in the same rounds. Also: `Timeout` on an MCP client's request (`ctx.hard_deadline`: the call
runs in a task of its own); the transform stack of `bench_transforms` with the three built-ins
against the plain tool; and how soon after a 0.2 s deadline the official `mcp` client hears back,
from a tool that is cancelled and from one that ignores cancellation (abandoned).
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread

from benchmarks.servers.adder import add, fastmcp_server
from benchmarks.timing import Row, interleaved
from toolweave import Context, Server
from toolweave.middleware import Logging, Middleware, Progress, Timeout

ARGS = {"a": 1, "b": 2}
GROUP = "middleware, in-process call_tool (µs/call)"
BASE = "toolweave: no middleware"
THREE = "toolweave: Logging + Timeout + Progress"


def _toolweave(*middleware: Middleware) -> Server:
    server = Server("adder", middleware=list(middleware))
    server.add_tool(add)
    return server


def _three(**selector: Any) -> list[Middleware]:
    return [Logging(**selector), Timeout(default=30, **selector), Progress(max_rate=10, **selector)]


def _fastmcp(with_middleware: bool) -> Any:
    from fastmcp.server.middleware.error_handling import ErrorHandlingMiddleware
    from fastmcp.server.middleware.logging import LoggingMiddleware
    from fastmcp.server.middleware.timing import TimingMiddleware

    server = fastmcp_server()
    if with_middleware:
        for layer in (LoggingMiddleware(), TimingMiddleware(), ErrorHandlingMiddleware()):
            server.add_middleware(layer)
    return server


class _PassThrough(Middleware):
    """A middleware that only awaits the rest of the chain: the floor of any `async def` layer."""

    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        return await call_next(call)


class _Discard(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        return None


async def interleaved_us(
    fns: dict[str, Callable[[], Awaitable[object]]], *, repeat: int, number: int, warmup: int = 200
) -> dict[str, float]:
    """`benchmarks.timing.interleaved` under the name other modules import it by."""
    return await interleaved(fns, rounds=repeat, number=number, warmup=warmup)


def _caller(server: Any) -> Callable[[], Awaitable[object]]:
    return lambda: server.call_tool("add", ARGS)


async def collect(quick: bool) -> list[Row]:
    number = 200 if quick else 2000
    rounds = 5 if quick else 15
    unmatched_server = _toolweave(*_three(tools="nothing_*"))
    assert unmatched_server.catalog.entries["add"].handler is None
    servers = {
        "base": _toolweave(),
        "three": _toolweave(*_three()),
        "unmatched": unmatched_server,
        "Logging": _toolweave(Logging()),
        "Timeout": _toolweave(Timeout(30)),
        "pass-through": _toolweave(_PassThrough()),
        "Progress": _toolweave(Progress()),
    }
    paths = {name: _caller(server) for name, server in servers.items()}
    timeout_server = servers["Timeout"]
    paths["Timeout, hard deadline"] = lambda: timeout_server.call_tool(
        "add", ARGS, ctx=Context(server=timeout_server, hard_deadline=True)
    )
    paths["fastmcp base"] = _caller(_fastmcp(False))
    paths["fastmcp three"] = _caller(_fastmcp(True))
    slow = max(number // 10, 50)
    timed = await interleaved(
        paths, rounds=rounds, number=number, numbers={"fastmcp base": slow, "fastmcp three": slow}
    )
    calls_logger = logging.getLogger("toolweave.calls")
    handler, previous = _Discard(), calls_logger.level
    calls_logger.addHandler(handler)
    calls_logger.setLevel(logging.INFO)
    disabled = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    try:
        logged = await interleaved({"base": paths["base"], "three": paths["three"]}, rounds=rounds, number=number)
    finally:
        logging.disable(disabled)
        calls_logger.removeHandler(handler)
        calls_logger.setLevel(previous)
    base = timed["base"]
    rows = [
        Row(GROUP, BASE, base),
        Row(GROUP, THREE, timed["three"], baseline=BASE, target="+5 µs at most"),
        Row(
            GROUP,
            "toolweave: the three, selectors match nothing",
            timed["unmatched"],
            baseline=BASE,
            target="+0 (no chain)",
        ),
        Row(GROUP, "toolweave: Logging alone", timed["Logging"], baseline=BASE),
        Row(GROUP, "toolweave: Timeout alone", timed["Timeout"], baseline=BASE, target="+1.5 µs"),
        Row(GROUP, "toolweave: Progress alone", timed["Progress"], baseline=BASE),
        Row(
            GROUP,
            "toolweave: a pass-through middleware",
            timed["pass-through"],
            baseline=BASE,
            note="the floor of any layer: async def awaiting call_next",
        ),
        Row(
            GROUP,
            "toolweave: Timeout, hard deadline (MCP requests)",
            timed["Timeout, hard deadline"],
            baseline=BASE,
            note="the call in a task of its own",
        ),
        Row(
            GROUP,
            f"{THREE} (records emitted)",
            logged["three"] - logged["base"] + base,
            baseline=BASE,
            note="a handler on toolweave.calls, stdlib LogRecord cost",
        ),
        Row(GROUP, "fastmcp 4.1.2: no middleware", timed["fastmcp base"], baseline=BASE),
        Row(
            GROUP,
            "fastmcp 4.1.2: Logging + Timing + ErrorHandling",
            timed["fastmcp three"],
            baseline="fastmcp 4.1.2: no middleware",
        ),
    ]
    return rows + await _stacked(quick) + await _deadline_answers(quick)


async def _stacked(quick: bool) -> list[Row]:
    """The transform stack of `bench_transforms` and the three built-ins on one tool, against the
    same tool plain."""
    from benchmarks.bench_transforms import PLAIN_ARGS, STACKED_ARGS, search, stacked_tool

    group = "stacked transforms + Logging + Timeout + Progress, in-process call_tool (µs/call)"
    plain = Server("plain")
    plain.add_tool(search)
    full = Server("full", middleware=_three())
    full.add_tool(stacked_tool())
    assert not (await full.call_tool("find_docs", STACKED_ARGS)).is_error
    timed = await interleaved(
        {
            "plain": lambda: plain.call_tool("search", PLAIN_ARGS),
            "full": lambda: full.call_tool("find_docs", STACKED_ARGS),
        },
        rounds=5 if quick else 21,
        number=200 if quick else 1000,
    )
    base = "toolweave: plain tool"
    return [
        Row(group, base, timed["plain"]),
        Row(group, "toolweave: stacked transforms + the three", timed["full"], baseline=base, target="≤1.3×"),
    ]


async def _deadline_answers(quick: bool) -> list[Row]:
    """How long after a 0.2 s deadline a client hears back, through the official `mcp` client,
    from a tool that is cancelled and from one that ignores cancellation."""
    from toolweave.testing import connect

    group = "Timeout(0.2) answered through mcp.Client (ms after the call)"
    server = Server("deadlines", middleware=[Timeout(0.2)])
    release = threading.Event()

    @server.tool
    async def sleeps() -> str:
        await anyio.sleep(5)
        return "late"

    @server.tool
    async def shielded() -> str:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(release.wait, 1)
        return "late"

    samples: dict[str, list[float]] = {"sleeps": [], "shielded": []}
    try:
        async with connect(server) as client:
            for _ in range(3 if quick else 10):
                for tool, times in samples.items():
                    started = time.perf_counter()
                    await client.call_tool(tool, {})  # (a timeout, or the late result where it was not capped)
                    times.append((time.perf_counter() - started) * 1e3)
    finally:
        release.set()
    return [
        Row(group, "async tool, cancelled", statistics.median(samples["sleeps"]), target="≤ 250 ms", unit="ms"),
        Row(
            group,
            "tool ignoring cancellation, abandoned",
            statistics.median(samples["shielded"]),
            target="≤ 250 ms",
            unit="ms",
        ),
    ]


if __name__ == "__main__":
    from benchmarks.run import merge, table

    logging.disable(logging.CRITICAL)
    print(table(merge([anyio.run(collect, False)])))
