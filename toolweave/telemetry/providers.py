"""Whether an OpenTelemetry SDK is configured: toolweave records nothing until one is.

The OpenTelemetry API answers every call with a no-op until the application installs an SDK
(`trace.set_tracer_provider(...)`, `metrics.set_meter_provider(...)`, or an auto-instrumenting
launcher). A provider from the API package itself (its proxy or no-op) means "not configured";
anything else (the SDK's, a vendor's) means configured. A provider can be installed only once
per process, so a positive answer is remembered. These are asked when a catalog compiles (once per
mounted tool) and when serving starts, never per call; `get_tracer_provider()` reads the
environment on every call while none is set (~2 µs), so the installed provider is read from the
API module's global first (~40 ns), falling back to the public function if that ever moves.

Example:
    >>> tracing_configured() in (True, False), metrics_configured() in (True, False)
    (True, True)
"""

from __future__ import annotations

from opentelemetry import metrics, trace

_configured: set[str] = set()
_MOVED = object()


def _installed(provider: object, api_package: str) -> bool:
    return not type(provider).__module__.startswith(api_package)


def tracing_configured() -> bool:
    """Whether a real tracer provider is installed (spans are recorded somewhere)."""
    if "traces" in _configured:
        return True
    provider = getattr(trace, "_TRACER_PROVIDER", _MOVED)  # None until one is set
    if provider is _MOVED:
        provider = trace.get_tracer_provider()
    if provider is not None and _installed(provider, "opentelemetry.trace"):
        _configured.add("traces")
    return "traces" in _configured


def metrics_configured() -> bool:
    """Whether a real meter provider is installed (measurements are collected somewhere)."""
    if "metrics" not in _configured and _installed(metrics.get_meter_provider(), "opentelemetry.metrics"):
        _configured.add("metrics")
    return "metrics" in _configured
