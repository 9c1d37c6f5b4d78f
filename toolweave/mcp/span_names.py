"""Bounded names for the SDK's server spans, whatever method and params a client sends.

The `mcp` SDK names the server span of every inbound request or notification `<method>
<params.name>` before any handler runs, for any method and any `name`. So a client could make a
new span name per message — with a method no server has (`random/8f3a…`, answered -32601), or a
`name` in the params of a method that names nothing (`completion/complete`, a notification) —
and span names are what trace backends group, index and derive span metrics by. The MCP
semantic conventions name a span `{mcp.method.name} {target}` only with a low-cardinality target
(a tool or prompt name), else `{mcp.method.name}`.

So, while tracing (checked when serving starts), the first step inside that span renames it:
a method this server does not serve is `(unknown method)`, and a method other than `tools/call`
and `prompts/get` is its method alone. (A tool or prompt name no catalog has is dropped where
it is looked up: `toolweave.telemetry.spans.name_no_target`.) The attributes the SDK copies from
the message (`mcp.method.name`, `jsonrpc.request.id`, `gen_ai.tool.name`, `gen_ai.prompt.name`)
keep what the client sent, cut after `MAX_NAME_LENGTH` characters (`quoted_name`): a 4 MB tool
name made a 4 MB attribute, and an exporter's batch past its message limit (4 MB in OTLP/gRPC)
is lost with every other span in it.

Example:
    >>> from toolweave import Server
    >>> from toolweave.mcp.adapter import adapter_for
    >>> lowlevel = adapter_for(Server("demo")).lowlevel
    >>> [bounded_name(lowlevel, method, params) for method, params in [
    ...     ("tools/call", {"name": "search"}),
    ...     ("completion/complete", {"name": "x1"}),
    ...     ("notifications/initialized", None),
    ...     ("random/8f3a", {"name": "x2"}),
    ... ]]
    [None, 'completion/complete', None, '(unknown method)']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_types.methods import SPEC_CLIENT_METHODS, SPEC_CLIENT_NOTIFICATION_METHODS
from opentelemetry import trace

from toolweave.core.names import MAX_NAME_LENGTH, quoted_name

UNKNOWN_METHOD = "(unknown method)"
_TARGETED = {"tools/call": "gen_ai.tool.name", "prompts/get": "gen_ai.prompt.name"}
"""The methods whose span names their target (its handler drops a name no catalog has), and
the attribute the SDK puts it in."""
_METHOD, _REQUEST_ID = "mcp.method.name", "jsonrpc.request.id"
_SPEC_METHODS = SPEC_CLIENT_METHODS | SPEC_CLIENT_NOTIFICATION_METHODS


def bound_span(lowlevel: Any, method: str, params: Mapping[str, Any] | None, request_id: Any) -> None:
    """Rename the current (the SDK's) server span if the SDK named it with the client's text, and
    cut the attributes it copied from the message if they are too long."""
    name = bounded_name(lowlevel, method, params)
    long = _long_attributes(method, params, request_id)
    if name is None and not long:
        return
    span = trace.get_current_span()
    if span.is_recording():
        if name is not None:
            span.update_name(name)
        if long:
            span.set_attributes(long)


def _long_attributes(method: str, params: Mapping[str, Any] | None, request_id: Any) -> dict[str, str]:
    """The attributes the SDK copied from the message that are too long, cut (most messages: none)."""
    target = params.get("name") if method in _TARGETED and isinstance(params, Mapping) else None
    if (
        len(method) <= MAX_NAME_LENGTH
        and (isinstance(request_id, int) or request_id is None or len(str(request_id)) <= MAX_NAME_LENGTH)
        and (not isinstance(target, str) or len(target) <= MAX_NAME_LENGTH)
    ):
        return {}
    sent = {_METHOD: method, _REQUEST_ID: str(request_id) if request_id is not None else ""}
    if isinstance(target, str):
        sent[_TARGETED[method]] = target
    return {key: quoted_name(value) for key, value in sent.items() if len(value) > MAX_NAME_LENGTH}


def bounded_name(lowlevel: Any, method: str, params: Mapping[str, Any] | None) -> str | None:
    """The name the span of a `method` message with `params` gets instead of the SDK's (`None`:
    the SDK's is bounded already)."""
    if method in _TARGETED:
        return None
    if not _serves(lowlevel, method):
        return UNKNOWN_METHOD
    named = params.get("name") if isinstance(params, Mapping) else None
    return method if isinstance(named, str) and named else None  # (the SDK names it `<method> <name>`)


def _serves(lowlevel: Any, method: str) -> bool:
    return (
        method in _SPEC_METHODS
        or lowlevel.get_request_handler(method) is not None
        or lowlevel.get_notification_handler(method) is not None
    )
