"""The OpenTelemetry SDK for the telemetry tests: in-memory spans and metrics, Prometheus too.

A process installs its tracer and meter providers once; these fixtures install them the first
time a telemetry test asks (tests that run later in the same process see them installed too).
Each test gets the span exporter emptied and its own view of the metrics.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


@dataclass
class Installed:
    spans: InMemorySpanExporter
    reader: InMemoryMetricReader


_installed: list[Installed] = []


def install() -> Installed:
    """Install the SDK providers (once per process)."""
    if not _installed:
        exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(tracer_provider)
        reader = InMemoryMetricReader()
        metrics.set_meter_provider(MeterProvider(metric_readers=[reader, PrometheusMetricReader()]))
        _installed.append(Installed(exporter, reader))
    return _installed[0]


class Spans:
    """The spans finished during one test."""

    def __init__(self, exporter: InMemorySpanExporter) -> None:
        self.exporter = exporter

    def all(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> ReadableSpan:
        found = [span for span in self.all() if span.name == name]
        assert len(found) == 1, f"{len(found)} spans named {name!r} in {[span.name for span in self.all()]}"
        return found[0]


class Metrics:
    """The metric points recorded since the test started (cumulative values minus the start)."""

    def __init__(self, reader: InMemoryMetricReader) -> None:
        self.reader = reader
        self.start = self._points()

    def _points(self) -> dict[tuple[str, frozenset[tuple[str, Any]]], Any]:
        points: dict[tuple[str, frozenset[tuple[str, Any]]], Any] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.data.data_points:
                        key = (metric.name, frozenset(point.attributes.items()))
                        points[key] = point.value if hasattr(point, "value") else point.count  # histograms: count
        return points

    def value(self, name: str, **attributes: Any) -> Any:
        """The change of `name` at exactly these attributes since the test started (0 if none)."""
        key = (name, frozenset(attributes.items()))
        now = self._points().get(key, 0)
        return now - self.start.get(key, 0) if name not in _GAUGES else now

    def series(self, name: str) -> dict[frozenset[tuple[str, Any]], Any]:
        """Every point of `name` now, by attributes."""
        return {attrs: value for (metric, attrs), value in self._points().items() if metric == name}


_GAUGES = {"toolweave.upstream.state", "toolweave.circuit.state"}


@pytest.fixture
def spans() -> Iterator[Spans]:
    installed = install()
    installed.spans.clear()
    yield Spans(installed.spans)
    installed.spans.clear()


@pytest.fixture
def recorded() -> Metrics:
    return Metrics(install().reader)
