"""W3C trace context from HTTP headers, for requests whose `_meta` carries none.

The SDK's server span takes its parent from the request's `params._meta` (`traceparent`,
`tracestate`). An HTTP client that sends the standard `traceparent` header instead — most HTTP
tooling does — gets the same parenting from this middleware, which runs before the SDK's span
starts and makes the header's context current. `_meta` wins when it has a valid `traceparent`.

Only HTTP apps install it (`read_http_trace_context`): stdio and in-memory requests have no
headers, and skip the layer entirely.

Example:
    >>> from toolweave import Server
    >>> from toolweave.mcp.adapter import adapter_for
    >>> lowlevel = adapter_for(Server("demo")).lowlevel
    >>> read_http_trace_context(lowlevel)
    >>> read_http_trace_context(lowlevel)  # installed once, first
    >>> lowlevel.middleware.count(trace_context_from_headers), lowlevel.middleware[0] is trace_context_from_headers
    (1, True)
"""

from __future__ import annotations

from typing import Any

from mcp.server import ServerRequestContext
from opentelemetry import context, propagate, trace

TRACEPARENT = "traceparent"


def read_http_trace_context(lowlevel: Any) -> None:
    """Put `trace_context_from_headers` first in the SDK server's middleware (once)."""
    if trace_context_from_headers not in lowlevel.middleware:
        lowlevel.middleware.insert(0, trace_context_from_headers)  # before the SDK's span starts


async def trace_context_from_headers(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
    """Run the rest of the request in the trace context of its HTTP `traceparent` header, if any."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None or TRACEPARENT not in headers or _has_context(ctx.meta):
        return await call_next(ctx)
    token = context.attach(propagate.extract(headers))
    try:
        return await call_next(ctx)
    finally:
        context.detach(token)


def _has_context(meta: Any) -> bool:
    """Whether the request's `_meta` carries a valid trace context (which the SDK's span then uses)."""
    if not meta or TRACEPARENT not in meta:
        return False
    return trace.get_current_span(propagate.extract(meta)).get_span_context().is_valid
