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
fail on such a value, and the SDK's span would turn the call into an internal error.) A
`traceparent` string that does not parse is the propagator's to ignore, and it does (quietly). A
`tracestate` or `baggage` (in `_meta` or an HTTP header) that is not W3C tracestate or baggage
within its limits (tracestate: 8,192 bytes, 32 members; baggage: 8,192 bytes, 180 members) is
dropped too: OpenTelemetry's propagators log a malformed member and an oversized header *with the
client's text* at WARNING, so one request wrote hundreds of lines, a line of megabytes, or — with
a newline in it — a log line of the client's choosing. (A dropped `tracestate` is what the
propagator would have made of it: the `traceparent` still parents the call, with no state.)

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
    >>> well_formed({"baggage": "user=ada;tier=gold, region = eu"}), well_formed({"baggage": "one, two"})
    ({'baggage': 'user=ada;tier=gold, region = eu'}, {})
    >>> well_formed({"tracestate": "congo=t61rcWkgMzE, rojo@vendor=00f0"}), well_formed({"tracestate": "Rojo=1"})
    ({'tracestate': 'congo=t61rcWkgMzE, rojo@vendor=00f0'}, {})
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from mcp.server import ServerRequestContext
from opentelemetry import context, propagate, trace

if TYPE_CHECKING:
    from mcp_types import RequestParamsMeta

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
BAGGAGE = "baggage"
TRACE_FIELDS = frozenset((TRACEPARENT, TRACESTATE, BAGGAGE))
"""The `_meta` fields the default propagators read (W3C trace context and baggage)."""
_OWS = r"[ \t]*"
_KEY = r"[\x21\x23-\x27\x2a\x2b\x2d\x2e\x30-\x39\x41-\x5a\x5e-\x7a\x7c\x7e]+"
_VALUE = r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*"
_MEMBER = rf"{_OWS}{_KEY}{_OWS}={_OWS}{_VALUE}{_OWS}(?:;{_OWS}{_KEY}{_OWS}(?:={_OWS}{_VALUE}{_OWS})?)*"
_BAGGAGE = re.compile(rf"(?:{_MEMBER})?(?:,(?:{_MEMBER})?)*")
"""W3C baggage, as OpenTelemetry's propagator reads it without a warning (the same key, value
and property grammar; an empty member, as in a trailing comma, skipped as it does)."""
_BAGGAGE_BYTES, _BAGGAGE_MEMBERS, _MEMBER_BYTES = 8192, 180, 4096
"""The propagator's limits (past them it logs the client's text)."""
_STATE_KEY = r"(?:[a-z][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})"
_STATE_VALUE = r"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
_STATE_MEMBER = rf"{_OWS}{_STATE_KEY}={_STATE_VALUE}{_OWS}"
_TRACESTATE = re.compile(rf"(?:{_STATE_MEMBER})?(?:,(?:{_STATE_MEMBER})?)*")
"""W3C tracestate, as OpenTelemetry's propagator reads it without a warning (its key and value
grammar; an empty member skipped as it does)."""
_TRACESTATE_BYTES, _TRACESTATE_MEMBERS = 8192, 32


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
    carrier = headers
    dropped = {field for field in (TRACESTATE, BAGGAGE) if not _kept(field, headers.get(field))}
    if dropped:
        carrier = {name: headers.get(name) for name in headers if name not in dropped}
    token = context.attach(propagate.extract(carrier))
    try:
        return await call_next(ctx)
    finally:
        context.detach(token)


def well_formed(meta: Mapping[str, Any]) -> dict[str, Any]:
    """`meta` without the trace fields whose value is not a string, nor a `tracestate` or
    `baggage` that is not W3C tracestate or baggage within its limits (`None` counts as absent)."""
    return {key: value for key, value in meta.items() if key not in TRACE_FIELDS or _kept(key, value)}


def _malformed(meta: Mapping[str, Any]) -> bool:
    for field in TRACE_FIELDS:
        value = meta.get(field)
        if value is not None and not _kept(field, value):
            return True
    return False


def _kept(field: str, value: Any) -> bool:
    """Whether a trace field's `value` goes to the propagators (`None`: absent, nothing to drop)."""
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    if field == BAGGAGE:
        return _is_baggage(value)
    if field == TRACESTATE:
        return _is_tracestate(value)
    return True


def _is_baggage(value: str) -> bool:
    return (
        len(value) <= _BAGGAGE_BYTES
        and value.count(",") < _BAGGAGE_MEMBERS
        and all(len(member) <= _MEMBER_BYTES for member in value.split(","))
        and _BAGGAGE.fullmatch(value) is not None
    )


def _is_tracestate(value: str) -> bool:
    return (
        len(value) <= _TRACESTATE_BYTES
        and sum(1 for member in value.split(",") if member.strip(" \t")) <= _TRACESTATE_MEMBERS
        and _TRACESTATE.fullmatch(value) is not None
    )


def _has_context(meta: Mapping[str, Any] | None) -> bool:
    """Whether the request's `_meta` (its trace fields strings) carries a valid trace context
    (which the SDK's span then uses)."""
    if not meta or TRACEPARENT not in meta:
        return False
    return trace.get_current_span(propagate.extract(meta)).get_span_context().is_valid
