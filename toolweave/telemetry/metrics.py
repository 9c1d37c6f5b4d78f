"""toolweave's metrics, on the OpenTelemetry metrics API (no-ops until a meter provider is set).

| instrument | kind | unit | attributes |
|---|---|---|---|
| `toolweave.tool.calls` | counter | `{call}` | `gen_ai.tool.name`, `toolweave.origin`, `toolweave.outcome` |
| `toolweave.tool.duration` | histogram | `s` | the same |
| `toolweave.tool.active` | up-down counter | `{call}` | `gen_ai.tool.name`, `toolweave.origin` |
| `toolweave.tool.rate_limited` | counter | `{call}` | `gen_ai.tool.name` |
| `toolweave.tool.timeouts` | counter | `{call}` | `gen_ai.tool.name` |
| `toolweave.tool.retries` | counter | `{retry}` | `gen_ai.tool.name` |
| `toolweave.upstream.state` | gauge | `1` | `toolweave.upstream`, `toolweave.upstream.state` |
| `toolweave.upstream.restarts` | counter | `{restart}` | `toolweave.upstream` |
| `toolweave.circuit.state` | gauge | `1` | `toolweave.circuit`, `toolweave.circuit.state` |

The state gauges are state sets: 1 for the current state (`up`/`restarting`/`down`;
`closed`/`open`/`half_open`), 0 for the others. A circuit is named by its breaker's `label`: by
default the server the `CircuitBreaker` is on, then the tools it selects (`gateway
names=['github_*']`), then `/` and the tool with `per_tool=True` (`github/search`); its state is
the one this process acts on (with a shared store, the shared circuit's).

Tool names are those of the catalog (a name no tool has is counted as `(unknown)`, so a client
cannot grow the label set): the name the client called, for the counters of middleware decisions
too (`rate_limited`, `timeouts`, `retries`), whichever mounted server's middleware decided — the
series of `billing_invoice` and `shop_invoice` stay apart though both are `invoice` where they
are defined. No argument, result or caller identity is ever a label.

Example:
    >>> from opentelemetry.sdk.metrics import MeterProvider
    >>> from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    >>> reader = InMemoryMetricReader()
    >>> instruments = Instruments(MeterProvider(metric_readers=[reader]).get_meter("toolweave"))  # or INSTRUMENTS
    >>> instruments.calls.add(1, {"gen_ai.tool.name": "search", "toolweave.origin": "local", "toolweave.outcome": "ok"})
    >>> [metric] = [m for m in reader.get_metrics_data().resource_metrics[0].scope_metrics[0].metrics
    ...             if m.name == "toolweave.tool.calls"]
    >>> [(point.attributes["gen_ai.tool.name"], point.value) for point in metric.data.data_points]
    [('search', 1)]
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Protocol

from opentelemetry import metrics
from opentelemetry.metrics import CallbackOptions, Observation

from toolweave.version import VERSION

UPSTREAM_STATES = ("up", "restarting", "down")
CIRCUIT_STATES = ("closed", "open", "half_open")
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
"""Histogram bounds in seconds, from a local function call to a slow upstream."""


class Watched(Protocol):
    """An upstream as the state gauge sees it."""

    @property
    def label(self) -> str: ...

    @property
    def health(self) -> str:
        """`up`, `restarting` or `down` (anything else, e.g. `stopped`, is not reported)."""
        ...


_upstreams: weakref.WeakSet[Watched] = weakref.WeakSet()
_circuits: dict[str, str] = {}


def watch_upstream(upstream: Watched) -> None:
    """Report `upstream`'s state in `toolweave.upstream.state` for as long as it exists."""
    _upstreams.add(upstream)


def set_circuit_state(circuit: str, state: str) -> None:
    """Report that `circuit` is now `closed`, `open` or `half_open`."""
    _circuits[circuit] = state


def _state_set(key: str, name: str, state: str, states: Iterable[str], label: str) -> Iterable[Observation]:
    for candidate in states:
        yield Observation(1 if candidate == state else 0, {key: name, label: candidate})


def _observe_upstreams(options: CallbackOptions) -> Iterable[Observation]:
    for upstream in list(_upstreams):
        state = upstream.health
        if state not in UPSTREAM_STATES:
            continue
        yield from _state_set("toolweave.upstream", upstream.label, state, UPSTREAM_STATES, "toolweave.upstream.state")


def _observe_circuits(options: CallbackOptions) -> Iterable[Observation]:
    for circuit, state in list(_circuits.items()):
        yield from _state_set("toolweave.circuit", circuit, state, CIRCUIT_STATES, "toolweave.circuit.state")


class Instruments:
    """The instruments, made once from the `toolweave` meter."""

    def __init__(self, meter: metrics.Meter) -> None:
        self.calls = meter.create_counter(
            "toolweave.tool.calls", "{call}", "Tool calls served, by tool, origin and outcome."
        )
        self.duration = meter.create_histogram(
            "toolweave.tool.duration",
            "s",
            "How long tool calls took, by tool, origin and outcome.",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self.active = meter.create_up_down_counter("toolweave.tool.active", "{call}", "Tool calls in progress.")
        self.rate_limited = meter.create_counter(
            "toolweave.tool.rate_limited", "{call}", "Calls turned away by a rate limit."
        )
        self.timeouts = meter.create_counter("toolweave.tool.timeouts", "{call}", "Calls cancelled at their deadline.")
        self.retries = meter.create_counter("toolweave.tool.retries", "{retry}", "Calls made again after a failure.")
        self.restarts = meter.create_counter(
            "toolweave.upstream.restarts", "{restart}", "Times an upstream was started again after it failed."
        )
        self.upstream_state = meter.create_observable_gauge(
            "toolweave.upstream.state", [_observe_upstreams], "1", "1 for each upstream's current state, else 0."
        )
        self.circuit_state = meter.create_observable_gauge(
            "toolweave.circuit.state", [_observe_circuits], "1", "1 for each circuit's current state, else 0."
        )


INSTRUMENTS = Instruments(metrics.get_meter("toolweave", VERSION))
