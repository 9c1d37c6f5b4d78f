"""Why a call went the way it did: what middleware decided, as span events and metrics.

Middleware that changes a call's outcome says so here, at the moment it decides: the event goes
on the span the middleware runs in (the call's server span, or the `mount` span of the server
whose middleware it is) and the matching counter is incremented. A pass-through layer adds
nothing, and a decision costs nothing per call that goes through.

| event | from | attributes |
|---|---|---|
| `toolweave.rate_limited` | `RateLimit` | `toolweave.retry_after` (seconds) |
| `toolweave.timeout` | `Timeout` | `toolweave.timeout` (the limit, seconds) |
| `toolweave.retry` | `Retry` | `toolweave.attempt` (the one that failed), `error.type`, `toolweave.retry_after` |
| `toolweave.circuit_open` | `CircuitBreaker` turning a call away | `toolweave.circuit.state` |

The counters (`toolweave.tool.rate_limited`, `.timeouts`, `.retries`) label a call by the name the
client called, as `toolweave.tool.calls` does: a mounted child's middleware sees the child's own
tool (`invoice`), and two mounts of tools with the same own name would otherwise be one series.
The served edge (`toolweave.telemetry.calls`) notes on the request's `Context` which exposed tool
it serves (`note_called`) while it records metrics; `called_name` maps the tool a middleware sees
to that name when the exposed tool was made from it, and otherwise (a call made in-process, with
no edge) keeps the tool's own name.

Example:
    >>> from opentelemetry.sdk.trace import TracerProvider
    >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> from toolweave import Context
    >>> from toolweave.testing import fake_tool
    >>> exporter = InMemorySpanExporter()
    >>> provider = TracerProvider()
    >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
    >>> with provider.get_tracer("demo").start_as_current_span("tools/call search"):
    ...     timed_out(fake_tool("search"), Context(), 2.0)  # `Timeout` cancelled the call
    >>> [(event.name, dict(event.attributes or {})) for event in exporter.get_finished_spans()[0].events]
    [('toolweave.timeout', {'toolweave.timeout': 2.0})]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from opentelemetry import trace

from toolweave.telemetry.metrics import INSTRUMENTS, set_circuit_state
from toolweave.telemetry.outcomes import error_type
from toolweave.telemetry.spans import ERROR_TYPE, TOOL_NAME

if TYPE_CHECKING:
    from toolweave.core.context import Context
    from toolweave.core.tool import Tool

CALLED = "toolweave.called_tool"
"""`ctx.state` key: the exposed tool the served edge is recording metrics for (set there only:
the tool a mounted child's middleware sees does not carry the name its client called)."""


FAILED = "toolweave.call_failed"
"""`ctx.state` key: what the call observed at the served edge is told when it fails
(`ToolCatalog.call(failed=)`, which notes it), for the call a tool of a catalog transform makes."""


def note_called(ctx: Context, tool: Tool) -> None:
    """The served edge is recording, for the request of `ctx`, a call of the exposed `tool`."""
    ctx.state[CALLED] = tool


def reaching(ctx: Context, tool: Tool | None) -> Callable[[BaseException], None] | None:
    """A tool a catalog transform adds (`SearchTools`' `call_tool`) calls `tool` (`None`: a name
    no tool has) for the request of `ctx`: the callback the observed call is told its failure
    with, if it is observed, so a masked failure, a timeout or a rate limit of the tool reached is
    the call's outcome (not the `tool_error` it answers with); and the middleware counters of
    `tool` are labelled with its name (two mounted `invoice` tools stay two series).

    Example:
        >>> from toolweave import Context
        >>> from toolweave.testing import fake_tool
        >>> failures = []
        >>> ctx = Context(state={FAILED: failures.append})  # (the served edge observes the call)
        >>> reaching(ctx, fake_tool("billing_invoice")) == failures.append
        True
        >>> reaching(Context(), None) is None  # a call nobody observes
        True
    """
    if tool is not None and CALLED in ctx.state:
        ctx.state[CALLED] = tool
    failed: Callable[[BaseException], None] | None = ctx.state.get(FAILED)
    return failed


def called_name(tool: Tool, ctx: Context | None) -> str:
    """The name the client called `tool` by: the exposed tool noted on `ctx` (`note_called`) when
    it was made from `tool` (a mounted child's own tool, a renamed one), else `tool.name`.

    Example:
        >>> from toolweave import Context, Server
        >>> billing, gateway = Server("billing"), Server("gateway")
        >>> own = billing.add_tool(lambda number: number, name="invoice")
        >>> mounted = gateway.mount(billing, prefix="billing")
        >>> ctx = Context()
        >>> note_called(ctx, gateway.catalog.get("billing_invoice").tool)
        >>> called_name(billing.catalog.get("invoice").tool, ctx)
        'billing_invoice'
        >>> called_name(billing.catalog.get("invoice").tool, Context())  # no call served: its own name
        'invoice'
    """
    exposed = ctx.state.get(CALLED) if ctx is not None else None
    if exposed is None:
        return tool.name
    return str(exposed.name) if any(made is tool for made in exposed.lineage()) else tool.name


def _event(name: str, attributes: dict[str, str | float | int]) -> None:
    span = trace.get_current_span()
    if span.is_recording():
        span.add_event(name, attributes)


def rate_limited(tool: Tool, ctx: Context | None, retry_after: float) -> None:
    """`RateLimit` turned a call of `tool` away; one may be made in `retry_after` seconds."""
    _event("toolweave.rate_limited", {"toolweave.retry_after": round(retry_after, 3)})
    INSTRUMENTS.rate_limited.add(1, {TOOL_NAME: called_name(tool, ctx)})


def timed_out(tool: Tool, ctx: Context | None, seconds: float) -> None:
    """`Timeout` cancelled a call of `tool` at its limit of `seconds`."""
    _event("toolweave.timeout", {"toolweave.timeout": seconds})
    INSTRUMENTS.timeouts.add(1, {TOOL_NAME: called_name(tool, ctx)})


def retrying(tool: Tool, ctx: Context | None, attempt: int, error: BaseException, wait: float) -> None:
    """`Retry` will call `tool` again in `wait` seconds: attempt `attempt` failed with `error`."""
    _event(
        "toolweave.retry",
        {"toolweave.attempt": attempt, ERROR_TYPE: error_type(error), "toolweave.retry_after": round(wait, 3)},
    )
    INSTRUMENTS.retries.add(1, {TOOL_NAME: called_name(tool, ctx)})


def circuit_open(state: str) -> None:
    """A `CircuitBreaker` turned a call away: its circuit is `state` (`open` or `half_open`)."""
    _event("toolweave.circuit_open", {"toolweave.circuit.state": state})


def circuit_changed(circuit: str, state: str) -> None:
    """The circuit `circuit` is now `state` (for the `toolweave.circuit.state` gauge)."""
    set_circuit_state(circuit, state)


def upstream_restarted(upstream: str) -> None:
    """The upstream `upstream` is being started again after it failed."""
    INSTRUMENTS.restarts.add(1, {"toolweave.upstream": upstream})
