"""Telemetry's cost per call: with no OpenTelemetry SDK configured (the default install), and with
the SDK recording every span to an in-memory exporter and every metric to an in-memory reader.

Paths: an in-process `call_tool` (local, and through a mount) and an in-memory round trip through
the official `mcp.Client` (local, and through a mount) — the served path, where the SDK's own
server span and toolweave's call span, mount span and call metrics apply.

- `no SDK` vs `baseline`: when `TOOLWEAVE_BASELINE` names another checkout of toolweave (e.g.
  `main` before telemetry), its package is copied as `toolweave_baseline` and timed in the same
  process as this checkout, batch for batch, alternating; `telemetry's cost` is the median of the
  paired differences (alternating batches cancel most of a shared machine's noise);
- `SDK, in-memory`: a process of its own (a process installs its providers once), with
  `TracerProvider` + `SimpleSpanProcessor(InMemorySpanExporter)` and
  `MeterProvider(InMemoryMetricReader)` installed before the servers are built; the best of a few
  rounds, each a median of batches;
- the `traceparent`-header middleware that HTTP apps add, timed on its own.

    python -m benchmarks.run telemetry
    TOOLWEAVE_BASELINE=/path/to/a/checkout/of/main python -m benchmarks.run telemetry
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from benchmarks.timing import Row, median_us

ROOT = Path(__file__).resolve().parent.parent
ARGS = {"a": 1, "b": 2}
GROUP = "telemetry: cost per call (µs/call)"
PATHS = {
    "call_tool": "in-process call_tool",
    "call_tool_mounted": "in-process call_tool through a mount",
    "round_trip": "in-memory round trip",
    "round_trip_mounted": "in-memory round trip through a mount",
}
Measure = Callable[[], Awaitable[Any]]


def install_sdk() -> None:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))


def gateway(package: str) -> Any:
    """A gateway with a local `add` and a mounted `billing_add`, from `package` (a toolweave)."""
    server_class = importlib.import_module(package).Server

    async def add(a: int, b: int) -> int:
        return a + b

    billing = server_class("billing")
    billing.add_tool(add)
    served = server_class("gateway")
    served.add_tool(add)
    served.mount(billing, prefix="billing")
    return served


async def paths(package: str, body: Callable[[dict[str, Measure]], Awaitable[Any]]) -> Any:
    """Run `body` with the four paths of `package`'s gateway, its in-memory client connected."""
    from mcp import Client

    served = gateway(package)
    async with Client(served.as_mcp()) as client:
        return await body(
            {
                "call_tool": lambda: served.call_tool("add", ARGS),
                "call_tool_mounted": lambda: served.call_tool("billing_add", ARGS),
                "round_trip": lambda: client.call_tool("add", ARGS),
                "round_trip_mounted": lambda: client.call_tool("billing_add", ARGS),
            }
        )


def batch_size(key: str, quick: bool) -> int:
    number = 300 if quick else 3000
    return number // 10 if key.startswith("round_trip") else number


async def measure(quick: bool) -> dict[str, float]:
    """This checkout's medians, by path (in this process's configuration)."""

    async def each(measures: dict[str, Measure]) -> dict[str, float]:
        return {key: await median_us(fn, number=batch_size(key, quick), warmup=50) for key, fn in measures.items()}

    results: dict[str, float] = await paths("toolweave", each)
    results["edge_hook"] = await edge_hook(30_000 if quick else 300_000)
    return results


async def measure_paired(quick: bool) -> dict[str, float]:
    """This checkout against `toolweave_baseline`, batch for batch: medians and paired differences."""
    rounds = 6 if quick else 24

    async def both(current: dict[str, Measure]) -> dict[str, float]:
        async def with_baseline(baseline: dict[str, Measure]) -> dict[str, float]:
            results: dict[str, float] = {}
            for key in PATHS:
                number = batch_size(key, quick) // 3
                for fn in (baseline[key], current[key]):
                    await median_us(fn, repeat=1, number=number, warmup=50)
                pairs = []
                for turn in range(rounds):  # who goes first alternates: no order bias
                    first, second = (baseline[key], current[key]) if turn % 2 else (current[key], baseline[key])
                    one = await median_us(first, repeat=1, number=number, warmup=0)
                    two = await median_us(second, repeat=1, number=number, warmup=0)
                    pairs.append((two, one) if turn % 2 == 0 else (one, two))
                results[f"{key}:baseline"] = statistics.median(before for before, _ in pairs)
                results[key] = statistics.median(after for _, after in pairs)
                results[f"{key}:cost"] = statistics.median(after - before for before, after in pairs)
            return results

        return await paths("toolweave_baseline", with_baseline)  # type: ignore[no-any-return]

    return await paths("toolweave", both)  # type: ignore[no-any-return]


async def edge_hook(number: int) -> float:
    """What the one per-request hook without an SDK costs over calling the next layer directly: the
    HTTP apps' `traceparent` middleware, on a request that carries no trace context."""
    from types import SimpleNamespace

    from toolweave.mcp.trace_context import trace_context_from_headers

    async def next_layer(ctx: Any) -> None:
        return None

    ctx: Any = SimpleNamespace(request=SimpleNamespace(headers={"content-type": "application/json"}), meta={})
    direct = await median_us(lambda: next_layer(ctx), number=number)
    hooked = await median_us(lambda: trace_context_from_headers(ctx, next_layer), number=number)
    return hooked - direct


def baseline_copy(checkout: Path) -> Path:
    """A folder holding `checkout`'s toolweave package as `toolweave_baseline` (imports rewritten)."""
    folder = Path(tempfile.mkdtemp(prefix="toolweave-baseline-"))
    package = folder / "toolweave_baseline"
    shutil.copytree(checkout / "toolweave", package)
    for path in package.rglob("*.py"):
        path.write_text(re.sub(r"\btoolweave\b", "toolweave_baseline", path.read_text()))
    return folder


def run_child(mode: str, quick: bool, baseline: Path | None = None) -> dict[str, float]:
    path = [str(ROOT), *([str(baseline)] if baseline is not None else [])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    command = [sys.executable, "-m", "benchmarks.bench_telemetry", mode, *(["--quick"] if quick else [])]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=1200)
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


async def collect(quick: bool) -> list[Row]:
    checkout = os.environ.get("TOOLWEAVE_BASELINE")
    baseline = baseline_copy(Path(checkout)) if checkout else None
    rounds = 1 if quick else 3
    try:
        runs: dict[str, list[dict[str, float]]] = {"none": [], "sdk": []}
        for _ in range(rounds):
            runs["none"].append(await anyio.to_thread.run_sync(run_child, "none", quick))
            runs["sdk"].append(await anyio.to_thread.run_sync(run_child, "sdk", quick))
        paired = await anyio.to_thread.run_sync(run_child, "paired", quick, baseline) if baseline else None
    finally:
        if baseline is not None:
            shutil.rmtree(baseline, ignore_errors=True)
    rows = []
    for key, path in PATHS.items():
        bare = min(run[key] for run in runs["none"])
        rows.append(Row(GROUP, f"{path}, no SDK", bare))
        rows.append(
            Row(GROUP, f"{path}, SDK, in-memory", min(run[key] for run in runs["sdk"]), baseline=f"{path}, no SDK")
        )
        if paired is not None:
            note = "paired batches in one process"
            rows.append(Row(GROUP, f"{path}, baseline", paired[f"{key}:baseline"], note=note))
            rows.append(Row(GROUP, f"{path}, this checkout", paired[key], baseline=f"{path}, baseline", note=note))
            rows.append(Row(GROUP, f"{path}: telemetry's cost, no SDK", paired[f"{key}:cost"], target="≤ +0.5 µs"))
    hook = min(run["edge_hook"] for run in runs["none"])
    rows.append(Row(GROUP, "HTTP requests: the traceparent-header hook, no SDK", hook, target="≤ +0.5 µs"))
    return rows


def _main(argv: list[str]) -> None:
    mode, quick = argv[0], "--quick" in argv
    if mode == "sdk":
        install_sdk()
    results: Any = anyio.run(measure_paired if mode == "paired" else measure, quick)
    print(json.dumps(results))


if __name__ == "__main__":
    _main(sys.argv[1:])
