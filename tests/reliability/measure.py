"""What a process holds: memory, file descriptors, threads, tasks, children; and call latency."""

from __future__ import annotations

import gc
import os
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from .cli import descendants

FIGURES: dict[str, object] = {}
"""Figures measured by the tests of this run (printed at the end with `-s`, quoted in docs/reliability.md)."""


def rss_kib() -> int:
    """This process's resident memory (KiB), after a full collection."""
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


POOL_THREAD = "AnyIO worker thread"
"""anyio keeps idle worker threads for reuse (up to its limit), not counted as held."""


@dataclass(frozen=True)
class Holdings:
    """Open file descriptors, threads (but anyio's pool of idle workers), tasks, child processes."""

    fds: int
    threads: int
    tasks: int
    children: int

    @classmethod
    def now(cls) -> Holdings:
        return cls(
            fds=len(os.listdir("/proc/self/fd")),
            threads=len([t for t in threading.enumerate() if t.name != POOL_THREAD]),
            tasks=len(anyio.get_running_tasks()),
            children=len(descendants(os.getpid())),
        )


async def settle(baseline: Holdings, within: float = 10.0) -> Holdings:
    """What the process holds once it is back to `baseline` (or after `within` seconds)."""
    deadline = time.monotonic() + within
    while True:
        now = Holdings.now()
        if now == baseline or time.monotonic() > deadline:
            return now
        await anyio.sleep(0.1)


async def paired_latency(
    first: Callable[[], Awaitable[object]], second: Callable[[], Awaitable[object]], rounds: int = 100
) -> tuple[float, float]:
    """The median seconds of `first()` and of `second()`, called in turn (so both see the same
    moments of a busy machine)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for call, measured in zip((first, second), times, strict=True):
            start = time.perf_counter()
            await call()
            measured.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])
