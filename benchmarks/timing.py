"""Timing helpers shared by the benchmark modules: medians of many batches, in microseconds.

Every `bench_*.py` module exposes `async def collect(quick: bool) -> list[Row]`; `run.py` runs
them in several processes and prints one table (and JSON).

The garbage collector stays **enabled** while timing: a server pays for it, and code that leaves
garbage behind (or keeps dead requests alive) must show it. Paths compared in one group are timed
with `interleaved`: every round runs one batch of each path, so a burst of load on a shared
machine hits all of them alike, and the ratios between them hold even when absolute figures drift.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

Path = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Row:
    """One measured path. `baseline` names another row of the same group to take a ratio against."""

    group: str
    name: str
    median_us: float
    baseline: str | None = None
    target: str = ""
    note: str = ""
    unit: str = "µs"


async def _batch(fn: Path, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        await fn()
    return (time.perf_counter() - start) / number * 1e6


async def interleaved(
    paths: Mapping[str, Path],
    *,
    rounds: int = 15,
    number: int = 2000,
    numbers: Mapping[str, int] | None = None,
    warmup: int = 200,
) -> dict[str, float]:
    """The median over `rounds` of the mean time of one awaited call of each path, in µs.

    Each round runs one batch of `number` calls of every path in turn (`numbers[name]` for a path
    that needs fewer, e.g. one a hundred times slower).
    """
    sizes = {name: (numbers or {}).get(name, number) for name in paths}
    for name, fn in paths.items():
        for _ in range(min(warmup, sizes[name])):
            await fn()
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(rounds):
        for name, fn in paths.items():
            samples[name].append(await _batch(fn, sizes[name]))
    return {name: statistics.median(values) for name, values in samples.items()}


async def median_us(fn: Path, *, repeat: int = 7, number: int = 2000, warmup: int = 200) -> float:
    """The median over `repeat` batches of the mean time of one awaited `fn()`, in microseconds."""
    return (await interleaved({"path": fn}, rounds=repeat, number=number, warmup=warmup))["path"]


def sync_median_us(fn: Callable[[], object], *, repeat: int = 7, number: int = 5000, warmup: int = 500) -> float:
    """`median_us` for a plain function."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(samples)
