"""Middleware benchmarks: Logging + Timeout + Progress vs none, in-process, beside FastMCP's.

Each row is one in-process `call_tool` of the same async `add` tool. toolweave rows: no
middleware; the three built-ins (calls logger at its default level, so records are filtered by
`isEnabledFor`); the same with a handler attached (every call formats a record); each built-in
alone; the three with selectors that match nothing (their cost must be 0: no chain at all).
FastMCP 4.1.2 rows: no middleware, and its logging, timing and error-handling middleware.
"""

from __future__ import annotations

import gc
import logging
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks.servers.adder import add, fastmcp_server
from benchmarks.timing import Row
from toolweave import Server
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


class _Discard(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        return None


async def interleaved_us(
    fns: dict[str, Callable[[], Awaitable[object]]], *, repeat: int, number: int, warmup: int = 200
) -> dict[str, float]:
    """`median_us` for several paths at once, batches interleaved, so load drift hits all alike."""
    for fn in fns.values():
        for _ in range(warmup):
            await fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    gc.disable()
    try:
        for _ in range(repeat):
            for name, fn in fns.items():
                start = time.perf_counter()
                for _ in range(number):
                    await fn()
                samples[name].append((time.perf_counter() - start) / number * 1e6)
    finally:
        gc.enable()
    return {name: statistics.median(values) for name, values in samples.items()}


def _caller(server: Any) -> Callable[[], Awaitable[object]]:
    return lambda: server.call_tool("add", ARGS)


async def collect(quick: bool) -> list[Row]:
    number = 200 if quick else 2000
    repeat = 5 if quick else 15
    unmatched_server = _toolweave(*_three(tools="nothing_*"))
    assert unmatched_server.catalog.entries["add"].handler is None
    servers = {
        "base": _toolweave(),
        "three": _toolweave(*_three()),
        "unmatched": unmatched_server,
        "Logging": _toolweave(Logging()),
        "Timeout": _toolweave(Timeout(30)),
        "Progress": _toolweave(Progress()),
    }
    timed = await interleaved_us(
        {name: _caller(server) for name, server in servers.items()}, repeat=repeat, number=number
    )
    base, three, unmatched = timed["base"], timed["three"], timed["unmatched"]
    alone = {name: timed[name] for name in ("Logging", "Timeout", "Progress")}
    calls_logger = logging.getLogger("toolweave.calls")
    handler, previous = _Discard(), calls_logger.level
    calls_logger.addHandler(handler)
    calls_logger.setLevel(logging.INFO)
    disabled = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    try:
        logged = await interleaved_us(
            {"base": _caller(servers["base"]), "three": _caller(servers["three"])}, repeat=repeat, number=number
        )
    finally:
        logging.disable(disabled)
        calls_logger.removeHandler(handler)
        calls_logger.setLevel(previous)
    three_logged = logged["three"] - logged["base"] + base
    fast = await interleaved_us(
        {"base": _caller(_fastmcp(False)), "three": _caller(_fastmcp(True))},
        repeat=repeat,
        number=max(number // 5, 50),
    )
    fast_base, fast_three = fast["base"], fast["three"]

    def delta(value: float, against: float) -> str:
        return f"+{value - against:.2f} µs"

    rows = [
        Row(GROUP, BASE, base),
        Row(GROUP, THREE, three, baseline=BASE, target="+5 µs at most", note=delta(three, base)),
        Row(
            GROUP,
            "toolweave: the three, selectors match nothing",
            unmatched,
            baseline=BASE,
            target="+0 (no chain)",
            note=delta(unmatched, base),
        ),
        *(
            Row(GROUP, f"toolweave: {name} alone", value, baseline=BASE, note=delta(value, base))
            for name, value in alone.items()
        ),
        Row(
            GROUP,
            f"{THREE} (records emitted)",
            three_logged,
            baseline=BASE,
            note=f"{delta(three_logged, base)}; a handler on toolweave.calls, stdlib LogRecord cost",
        ),
        Row(GROUP, "fastmcp 4.1.2: no middleware", fast_base, baseline=BASE),
        Row(
            GROUP,
            "fastmcp 4.1.2: Logging + Timing + ErrorHandling",
            fast_three,
            baseline="fastmcp 4.1.2: no middleware",
            note=delta(fast_three, fast_base),
        ),
    ]
    return rows


if __name__ == "__main__":
    import anyio

    from benchmarks.run import table

    logging.disable(logging.CRITICAL)
    print(table(anyio.run(collect, False)))
