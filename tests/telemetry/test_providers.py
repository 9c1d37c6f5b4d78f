"""Whether an SDK is installed is read right, and cheaply."""

from __future__ import annotations

from opentelemetry import trace

from tests.telemetry.conftest import install
from toolweave.telemetry.providers import metrics_configured, tracing_configured


def test_installed_sdk_providers_count_as_configured() -> None:
    install()
    assert tracing_configured() and metrics_configured()


def test_the_api_still_keeps_its_tracer_provider_where_the_fast_check_reads_it() -> None:
    """If this fails, `tracing_configured` falls back to the slower public function: still right."""
    assert hasattr(trace, "_TRACER_PROVIDER")
