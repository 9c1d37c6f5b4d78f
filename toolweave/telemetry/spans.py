"""The spans toolweave adds to a trace, and the attribute names it uses.

The `mcp` SDK wraps each request a server receives in a SERVER span (`tools/call <name>`, with
`mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`) and each request its client sends
in a CLIENT span, injecting W3C trace context (`traceparent`, `tracestate`) into the request's
`_meta`. toolweave keeps those and adds detail where it adds behaviour:

- the call span (the SDK's server span) gets `toolweave.origin`, `toolweave.tool.original_name`,
  `toolweave.outcome` and, for a masked failure, `toolweave.incident` (see `toolweave.telemetry.calls`);
- a call, prompt or resource read through a mounted server runs in an INTERNAL span
  `mount <prefix>` (`traced_mount`);
- a request to a remote upstream runs in a CLIENT span `tools/call <name>` (`prompts/get
  <name>`, `resources/read`: a URI is in `mcp.resource.uri`, never in a span name, as the MCP
  semantic conventions advise; `UpstreamSpan`), the parent of the SDK's own send span, whose
  trace context reaches the upstream in `_meta`;
- middleware that changes the outcome adds an event to the span it runs in
  (`toolweave.telemetry.events`).

toolweave's spans start only under a span that is recording (a served request's, or one of your
own around an in-process call): it adds detail to a trace, it never starts one. Argument values
and results are never recorded, nor exception messages: a failure is its `error.type` (the class
name) and, when masked, its incident id. The SDK's send span records an upstream's JSON-RPC
error message: it gets it without the values of the request's arguments
(`toolweave.telemetry.withheld`).

Example:
    >>> span_name("tools/call", "search")
    'tools/call search'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, StatusCode

from toolweave.core.context import Context
from toolweave.core.masking import incident_id
from toolweave.core.result import ToolResult
from toolweave.telemetry.outcomes import INTERNAL, error_type, outcome_of
from toolweave.version import VERSION

TRACER = trace.get_tracer("toolweave", VERSION)

MCP_METHOD = "mcp.method.name"
OPERATION = "gen_ai.operation.name"
TOOL_NAME = "gen_ai.tool.name"
PROMPT_NAME = "gen_ai.prompt.name"
RESOURCE_URI = "mcp.resource.uri"
ERROR_TYPE = "error.type"
NETWORK_TRANSPORT = "network.transport"
ORIGIN = "toolweave.origin"
"""Which server served the call: `local`, or the mounts (by prefix) from the outside in (`billing/stripe`)."""
ORIGINAL_NAME = "toolweave.tool.original_name"
"""The tool's name where it was defined (an upstream's own name, before prefixes and renames)."""
OUTCOME = "toolweave.outcome"
INCIDENT = "toolweave.incident"
MOUNT_PREFIX = "toolweave.mount.prefix"
MOUNTED_SERVER = "toolweave.mount.server"
UPSTREAM = "toolweave.upstream"

Run = Callable[[dict[str, Any], Context], Awaitable[ToolResult]]
P = ParamSpec("P")
R = TypeVar("R")


def span_name(method: str, target: str | None) -> str:
    """`<method> <target>`, the span name the MCP semantic conventions use."""
    return f"{method} {target}" if target else method


def recording_span() -> Span | None:
    """The current span if it is recording (an SDK is configured and the trace is sampled), else None."""
    span = trace.get_current_span()
    return span if span.is_recording() else None


def name_no_target(method: str) -> None:
    """Name the request's span `method` alone: it named a tool or prompt no catalog has, and the
    SDK names its server span with what the client sent (a name per call, if a client wants)."""
    span = trace.get_current_span()
    if span.is_recording():
        span.update_name(method)


def record_failure(span: Span, error: BaseException) -> None:
    """Mark `span` as failed by `error`: its outcome, type and incident id (never its message)."""
    outcome = outcome_of(error)
    span.set_attribute(OUTCOME, outcome)
    if outcome != "cancelled":
        span.set_attribute(ERROR_TYPE, error_type(error))
        span.set_status(StatusCode.ERROR)
    if outcome == INTERNAL:
        span.set_attribute(INCIDENT, incident_id(error))


def record_outcome(span: Span, is_error: bool) -> None:
    """Mark `span` with what was answered (a tool's `isError` result is a `tool_error`)."""
    if is_error:
        span.set_attributes({OUTCOME: "tool_error", ERROR_TYPE: "tool_error"})
        span.set_status(StatusCode.ERROR)
    else:
        span.set_attribute(OUTCOME, "ok")


def traced_mount(
    run: Callable[P, Awaitable[R]],
    *,
    prefix: str | None,
    server: str,
    target: tuple[str, str],
    failed: Callable[[R], bool] | None = None,
) -> Callable[P, Awaitable[R]]:
    """`run` (a mounted child's call path) inside an INTERNAL span `mount <prefix>` when traced.

    Args:
        prefix: The mount prefix (`None`: mounted without one; the span is named for the server).
        server: The mounted server's name.
        target: What is run, as its attribute: `(TOOL_NAME, name)`, `(PROMPT_NAME, name)`,
            `(RESOURCE_URI, uri)` — the child's own name or URI.
        failed: Whether a result is a failure (a tool's `isError` result); raising always is.
    """
    name = f"mount {prefix if prefix is not None else server}"
    attributes = {MOUNTED_SERVER: server, target[0]: target[1]}
    if prefix is not None:
        attributes[MOUNT_PREFIX] = prefix
    get_current_span = trace.get_current_span

    async def run_mounted(*args: P.args, **kwargs: P.kwargs) -> R:
        if not get_current_span().is_recording():
            return await run(*args, **kwargs)
        with TRACER.start_as_current_span(
            name, attributes=attributes, record_exception=False, set_status_on_exception=False
        ) as span:
            try:
                result = await run(*args, **kwargs)
            except BaseException as error:
                record_failure(span, error)
                raise
            record_outcome(span, failed is not None and failed(result))
            return result

    return run_mounted


TARGETS = {"tools/call": TOOL_NAME, "prompts/get": PROMPT_NAME, "resources/read": RESOURCE_URI}
"""The attribute that names what a request is about, by method."""


class UpstreamSpan:
    """A CLIENT span around one request to a remote upstream (only under a recording span).

    Args:
        upstream: The upstream's label.
        target: The tool or prompt name, or the resource URI, in the upstream's own terms.
        transport: `pipe` (stdio) or `tcp`.
        method: `tools/call`, `prompts/get` or `resources/read`.

    Example:
        >>> with UpstreamSpan("github", "search", transport="pipe") as span:
        ...     span.answered(is_error=False)
        >>> span.span is None  # no span is recording here, so none is started
        True
    """

    __slots__ = ("_context", "_method", "_target", "_transport", "_upstream", "span")

    def __init__(self, upstream: str, target: str, *, transport: str, method: str = "tools/call") -> None:
        self._upstream, self._target, self._transport, self._method = upstream, target, transport, method
        self._context: Any = None
        self.span: Span | None = None

    def __enter__(self) -> UpstreamSpan:
        if trace.get_current_span().is_recording():
            attributes = {
                MCP_METHOD: self._method,
                TARGETS[self._method]: self._target,
                UPSTREAM: self._upstream,
                NETWORK_TRANSPORT: self._transport,
            }
            if self._method == "tools/call":
                attributes[OPERATION] = "execute_tool"
            named = self._method != "resources/read"  # (a URI is no span name: one per resource read)
            self._context = TRACER.start_as_current_span(
                span_name(self._method, self._target if named else None),
                kind=SpanKind.CLIENT,
                attributes=attributes,
                record_exception=False,
                set_status_on_exception=False,
            )
            self.span = self._context.__enter__()
        return self

    def answered(self, is_error: bool) -> None:
        """Record what the upstream answered (`is_error`: an `isError` result)."""
        if self.span is not None:
            record_outcome(self.span, is_error)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._context is None:
            return
        if exc is not None and self.span is not None:
            record_failure(self.span, exc)
        self._context.__exit__(exc_type, exc, tb)
