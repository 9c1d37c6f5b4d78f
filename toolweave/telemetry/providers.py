"""Whether an OpenTelemetry SDK is configured: toolweave records nothing until one is.

The OpenTelemetry API answers every call with a no-op until the application installs an SDK
(`trace.set_tracer_provider(...)`, `metrics.set_meter_provider(...)`, or an auto-instrumenting
launcher). A provider from the API package itself (its proxy or no-op) means "not configured";
anything else (the SDK's, a vendor's) means configured. A provider can be installed only once
per process, so a positive answer is remembered; a negative one is asked again (it costs about
2 µs: these are called when a catalog compiles or serving starts, never per call).

Example:
    >>> tracing_configured() in (True, False), metrics_configured() in (True, False)
    (True, True)
"""

from __future__ import annotations

from opentelemetry import metrics, trace

_configured: set[str] = set()


def _installed(provider: object, api_package: str) -> bool:
    return not type(provider).__module__.startswith(api_package)


def tracing_configured() -> bool:
    """Whether a real tracer provider is installed (spans are recorded somewhere)."""
    if "traces" not in _configured and _installed(trace.get_tracer_provider(), "opentelemetry.trace"):
        _configured.add("traces")
    return "traces" in _configured


def metrics_configured() -> bool:
    """Whether a real meter provider is installed (measurements are collected somewhere)."""
    if "metrics" not in _configured and _installed(metrics.get_meter_provider(), "opentelemetry.metrics"):
        _configured.add("metrics")
    return "metrics" in _configured
