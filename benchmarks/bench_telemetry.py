"""Telemetry's cost per call: with no OpenTelemetry SDK configured (the default install), and with
the SDK recording every span to an in-memory exporter and every metric to an in-memory reader.

A process installs its tracer and meter providers once, so each configuration is measured in a
process of its own, in interleaved rounds; each round's figure is a median of batches, and the
best round is reported (on a shared machine the slowest rounds measure the neighbours, not us):

- `no SDK`: this checkout as installed, nothing configured;
- `SDK, in-memory`: the same with `TracerProvider` + `SimpleSpanProcessor(InMemorySpanExporter)`
  and `MeterProvider(InMemoryMetricReader)` installed before the servers are built;
- `baseline`: when `TOOLWEAVE_BASELINE` names another checkout of toolweave (e.g. `main` before
  telemetry), that checkout with no SDK: the "no SDK" cost over it is what telemetry adds.

Paths: an in-process `call_tool` (local, and through a mount), and an in-memory round trip through
the official `mcp.Client` (local, and through a mount) — the served path, where the SDK's own
server span and toolweave's call span, mount span and call metrics apply.

    python -m benchmarks.run --only telemetry
    TOOLWEAVE_BASELINE=/path/to/main python -m benchmarks.run --only telemetry
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
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


async def measure(quick: bool) -> dict[str, float]:
    """The medians of this process's configuration, by path."""
    from mcp import Client

    from toolweave import Server

    async def add(a: int, b: int) -> int:
        return a + b

    billing = Server("billing")
    billing.add_tool(add)
    gateway = Server("gateway")
    gateway.add_tool(add)
    gateway.mount(billing, prefix="billing")
    number = 300 if quick else 3000
    results = {
        "call_tool": await median_us(lambda: gateway.call_tool("add", ARGS), number=number),
        "call_tool_mounted": await median_us(lambda: gateway.call_tool("billing_add", ARGS), number=number),
    }
    async with Client(gateway.as_mcp()) as client:
        for key, name in (("round_trip", "add"), ("round_trip_mounted", "billing_add")):
            results[key] = await median_us(
                lambda c=client, n=name: c.call_tool(n, ARGS), number=number // 10, warmup=50  # type: ignore[misc]
            )
    results.update(await edge_hooks(number * 10))
    return results


async def edge_hooks(number: int) -> dict[str, float]:
    """What the only per-request hook without an SDK costs over calling the next layer directly:
    the HTTP apps' `traceparent` middleware, on a request that carries no trace context."""
    from types import SimpleNamespace

    try:
        from toolweave.mcp.trace_context import trace_context_from_headers
    except ImportError:  # a baseline checkout without telemetry
        return {}

    async def next_layer(ctx: Any) -> None:
        return None

    ctx: Any = SimpleNamespace(request=SimpleNamespace(headers={"content-type": "application/json"}), meta={})
    direct = await median_us(lambda: next_layer(ctx), number=number)
    hooked = await median_us(lambda: trace_context_from_headers(ctx, next_layer), number=number)
    return {"edge_hook": hooked - direct}


def run_child(mode: str, root: Path, quick: bool) -> dict[str, float]:
    # Run as a script (not `-m`, which would put this checkout first): `root`'s toolweave is imported.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(ROOT)]))
    command = [sys.executable, str(Path(__file__).resolve()), mode, *(["--quick"] if quick else [])]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


async def collect(quick: bool) -> list[Row]:
    configs: list[tuple[str, str, Path]] = [("no SDK", "none", ROOT), ("SDK, in-memory", "sdk", ROOT)]
    baseline = os.environ.get("TOOLWEAVE_BASELINE")
    if baseline:
        configs.insert(0, ("baseline (no telemetry)", "none", Path(baseline)))
    rounds = 1 if quick else 7
    samples: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in configs}
    for _ in range(rounds):
        for label, mode, root in configs:
            samples[label].append(await anyio.to_thread.run_sync(run_child, mode, root, quick))
    rows = []
    for key, path in PATHS.items():
        medians = {label: min(run[key] for run in runs) for label, runs in samples.items()}
        for label, value in medians.items():
            base = f"{path}, no SDK" if label != "no SDK" else None
            rows.append(Row(GROUP, f"{path}, {label}", value, baseline=base))
        if baseline:
            added = medians["no SDK"] - medians["baseline (no telemetry)"]
            rows.append(Row(GROUP, f"{path}: telemetry's cost, no SDK", added, target="≤ +0.5 µs"))
    hook = statistics.median(run["edge_hook"] for run in samples["no SDK"])
    rows.append(Row(GROUP, "HTTP requests: the traceparent-header hook, no SDK", hook, target="≤ +0.5 µs"))
    return rows


def _main(argv: list[str]) -> None:
    mode, quick = argv[0], "--quick" in argv
    if mode == "sdk":
        install_sdk()
    import toolweave

    results: Any = anyio.run(measure, quick)
    print(f"toolweave from {Path(toolweave.__file__).parent}", file=sys.stderr)
    print(json.dumps(results))


if __name__ == "__main__":
    _main(sys.argv[1:])
