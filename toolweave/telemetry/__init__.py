"""Observing toolweave: OpenTelemetry spans and metrics, structured call logs.

Everything goes through the OpenTelemetry API, which is a no-op until the application configures
an SDK; toolweave adds no cost per call until then.

- `toolweave.telemetry.spans`: the spans toolweave adds (mounts, upstream calls) and the
  attribute names;
- `toolweave.telemetry.calls`: the call span and call metrics of a served `tools/call`;
- `toolweave.telemetry.events`: what middleware decided (rate limited, timed out, retried);
- `toolweave.telemetry.metrics`: the instruments;
- `toolweave.telemetry.withheld`: an upstream's error reaches the SDK's send span without the
  argument values of the request it answers;
- `toolweave.telemetry.logs`: `JsonFormatter`, one JSON object per log record with the trace id.

Example:
    >>> from toolweave.telemetry.providers import tracing_configured
    >>> tracing_configured() in (True, False)
    True
"""
