"""`/metrics` serves toolweave's metrics wherever a Prometheus reader exports them; when the
application's own meter provider has none, the app says so at startup and `/metrics` answers 503
with the reason — never a 200 without toolweave's metrics."""

from __future__ import annotations

import logging

import httpx2
import mcp
import pytest
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from prometheus_client import REGISTRY, CollectorRegistry

from tests.conftest import run_python
from tests.serving import serving
from tests.telemetry.conftest import Metrics
from toolweave import Server
from toolweave.mcp.health import NOT_EXPORTED, fed_by_opentelemetry

OWN_PROVIDER = """
import logging, anyio, httpx2, mcp
from opentelemetry import metrics
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from tests.serving import serving
from toolweave import Server

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
reader = InMemoryMetricReader()  # the application's own exporter (think OTLP)
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
server = Server("own")
server.add_tool(lambda: "pong", name="ping")

async def main():
    async with serving(server.http_app(metrics=True)) as base:
        async with mcp.Client(base + "/mcp") as client:
            await client.call_tool("ping", {})
        async with httpx2.AsyncClient() as http:
            scraped = await http.get(base + "/metrics")
    print(scraped.status_code)
    print(scraped.text, end="")
    counted = [
        point.value
        for resource in reader.get_metrics_data().resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "toolweave.tool.calls"
        for point in metric.data.data_points
        if point.attributes["gen_ai.tool.name"] == "ping"
    ]
    print("counted by the application's provider:", counted)

anyio.run(main)
"""


def test_an_application_provider_without_a_prometheus_reader_gets_a_warning_and_a_503() -> None:
    done = run_python(OWN_PROVIDER)
    assert done.returncode == 0, done.stderr
    status, *body, counted = done.stdout.splitlines()
    assert status == "503"
    assert "\n".join(body) + "\n" == NOT_EXPORTED
    assert counted == "counted by the application's provider: [1]"  # the calls went to its provider
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING toolweave.mcp")]
    assert len(warnings) == 1 and "/metrics will answer 503" in warnings[0]
    assert "MeterProvider" in warnings[0] and "PrometheusMetricReader" in warnings[0]


async def test_an_application_provider_with_a_prometheus_reader_feeds_metrics_without_a_warning(
    recorded: Metrics, caplog: pytest.LogCaptureFixture
) -> None:
    """This process's provider is the application's own (tests/telemetry/conftest.py), with a
    `PrometheusMetricReader`: `/metrics` serves its points."""
    server = Server("fed")
    server.add_tool(lambda: "pong", name="ping")
    with caplog.at_level(logging.WARNING, logger="toolweave.mcp"):
        app = server.http_app(metrics=True)
    async with serving(app) as base:
        async with mcp.Client(base + "/mcp") as client:
            await client.call_tool("ping", {})
        async with httpx2.AsyncClient() as http:
            scraped = await http.get(base + "/metrics")
    assert not caplog.records
    assert scraped.status_code == 200 and 'gen_ai_tool_name="ping"' in scraped.text


def test_a_registry_is_fed_only_once_a_prometheus_reader_exports_to_it() -> None:
    registry = CollectorRegistry()
    before = fed_by_opentelemetry(registry)
    PrometheusMetricReader(registry=registry)
    assert (before, fed_by_opentelemetry(registry)) == (False, True)


def test_prometheus_client_still_lists_its_collectors_where_the_check_reads_them() -> None:
    """If this fails, `fed_by_opentelemetry` answers None and `/metrics` is served unchecked."""
    assert isinstance(getattr(REGISTRY, "_collector_to_names", None), dict)
