"""W3C trace context from HTTP headers, for requests whose `_meta` carries none; malformed trace
context in `_meta` dropped.

The SDK's server span takes its parent from the request's `params._meta` (`traceparent`,
`tracestate`, and `baggage` through the global propagator). An HTTP client that sends the standard
`traceparent` header instead — most HTTP tooling does — gets the same parenting from this
middleware, which runs before the SDK's span starts and makes the header's context current.
`_meta` wins when it has a valid `traceparent`.

Trace context is text: a `_meta` trace field that is not a string (a number, a list, an object)
is dropped before anything reads it, as the W3C spec drops an invalid `traceparent` — the call is
served, parented by the header if there is one, else in a new trace. (The propagators would
fail on such a value, and the SDK's span would turn the call into an internal error.) A string
that does not parse is the propagators' to ignore, and they do.

Every served server has it (`read_trace_context`, installed by the adapter): stdio and in-memory
requests have no headers, and only have malformed `_meta` trace fields dropped.

Example:
    >>> from toolweave import Server
    >>> from toolweave.mcp.adapter import adapter_for
    >>> lowlevel = adapter_for(Server("demo")).lowlevel
    >>> read_trace_context(lowlevel)
    >>> read_trace_context(lowlevel)  # installed once, first
    >>> lowlevel.middleware.count(trace_context_from_headers), lowlevel.middleware[0] is trace_context_from_headers
    (1, True)
    >>> well_formed({"traceparent": 12, "tracestate": "k=v", "progressToken": 1})
    {'tracestate': 'k=v', 'progressToken': 1}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from mcp.server import ServerRequestContext
from opentelemetry import context, propagate, trace

if TYPE_CHECKING:
    from mcp_types import RequestParamsMeta

TRACEPARENT = "traceparent"
TRACE_FIELDS = frozenset((TRACEPARENT, "tracestate", "baggage"))
"""The `_meta` fields the default propagators read (W3C trace context and baggage)."""


def read_trace_context(lowlevel: Any) -> None:
    """Put `trace_context_from_headers` first in the SDK server's middleware (once)."""
    if trace_context_from_headers not in lowlevel.middleware:
        lowlevel.middleware.insert(0, trace_context_from_headers)  # before the SDK's span starts


async def trace_context_from_headers(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
    """Run the rest of the request in the trace context of its HTTP `traceparent` header, if any
    (and without the trace fields of its `_meta` that are not strings)."""
    meta: Mapping[str, Any] | None = ctx.meta
    if meta and not TRACE_FIELDS.isdisjoint(meta) and _malformed(meta):  # (most requests: no trace fields)
        meta = well_formed(meta)
        ctx = dataclasses.replace(ctx, meta=cast("RequestParamsMeta", meta))  # what the SDK's span reads
    headers = getattr(ctx.request, "headers", None)
    if headers is None or TRACEPARENT not in headers or _has_context(meta):
        return await call_next(ctx)
    token = context.attach(propagate.extract(headers))
    try:
        return await call_next(ctx)
    finally:
        context.detach(token)


def well_formed(meta: Mapping[str, Any]) -> dict[str, Any]:
    """`meta` without the trace fields whose value is not a string (`None` counts as absent)."""
    return {key: value for key, value in meta.items() if key not in TRACE_FIELDS or isinstance(value, str)}


def _malformed(meta: Mapping[str, Any]) -> bool:
    for field in TRACE_FIELDS:
        value = meta.get(field)
        if value is not None and not isinstance(value, str):
            return True
    return False


def _has_context(meta: Mapping[str, Any] | None) -> bool:
    """Whether the request's `_meta` (its trace fields strings) carries a valid trace context
    (which the SDK's span then uses)."""
    if not meta or TRACEPARENT not in meta:
        return False
    return trace.get_current_span(propagate.extract(meta)).get_span_context().is_valid
