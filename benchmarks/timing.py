"""Timing helpers shared by the benchmark modules: medians of many repeats, in microseconds.

Every `bench_*.py` module exposes `async def collect(quick: bool) -> list[Row]`; `run.py`
prints them side by side as one table (and JSON).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


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


async def median_us(
    fn: Callable[[], Awaitable[object]], *, repeat: int = 7, number: int = 2000, warmup: int = 200
) -> float:
    """The median over `repeat` batches of the mean time of one awaited `fn()`, in microseconds."""
    for _ in range(warmup):
        await fn()
    samples = []
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(number):
                await fn()
            samples.append((time.perf_counter() - start) / number * 1e6)
    finally:
        gc.enable()
    return statistics.median(samples)


def sync_median_us(fn: Callable[[], object], *, repeat: int = 7, number: int = 5000, warmup: int = 500) -> float:
    """`median_us` for a plain function."""
    for _ in range(warmup):
        fn()
    samples = []
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - start) / number * 1e6)
    finally:
        gc.enable()
    return statistics.median(samples)
