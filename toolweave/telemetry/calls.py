"""The call span and call metrics of a served `tools/call`.

While a server is served with a tracer or meter provider configured (checked when serving
starts), each `tools/call` is observed once, at the server's edge:

- the current span (the SDK's `tools/call <name>` server span) gets `toolweave.origin`,
  `toolweave.tool.original_name` and, when the call ends, `toolweave.outcome` and — for a
  masked failure — `toolweave.incident`, the id the client's message carries (never the message);
  for a name no tool has it is renamed `tools/call` (span names stay as bounded as the labels);
- `toolweave.tool.calls`, `toolweave.tool.duration` and `toolweave.tool.active` are recorded
  with the tool's exposed name, its origin and the outcome; while the call runs (its work as a
  task included), the counters of middleware decisions (`toolweave.telemetry.events`) get the
  same exposed name, whichever mounted server's middleware decides;
- a call answered with a task goes on until its work ends: the request's span gets the outcome
  `task`, the work runs in a span `task <tool>` under it (the mounts and upstreams it goes
  through are its children), and the call is counted once, with its work's outcome and duration.

Without a provider the edge skips all of it: serving costs what it did before.

Example:
    >>> from toolweave import Server
    >>> server = Server("demo")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> labels_for(server.catalog.get("add").tool)
    CallLabels(tool='add', original='add', origin='local')
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from opentelemetry import context as context_api
from opentelemetry import trace
from opentelemetry.trace import Span, StatusCode

from toolweave.core.context import Context
from toolweave.core.masking import incident_id
from toolweave.core.tool import Tool
from toolweave.server.mount import Prefix
from toolweave.server.tools import ToolCatalog
from toolweave.telemetry.events import note_called
from toolweave.telemetry.metrics import INSTRUMENTS
from toolweave.telemetry.outcomes import INTERNAL, outcome_of
from toolweave.telemetry.providers import metrics_configured, tracing_configured
from toolweave.telemetry.spans import (
    INCIDENT,
    OPERATION,
    ORIGIN,
    ORIGINAL_NAME,
    OUTCOME,
    TOOL_NAME,
    TRACER,
    name_no_target,
    record_failure,
    record_outcome,
    recording_span,
    span_name,
)

UNKNOWN = "(unknown)"
TASK = "task"
"""The request span's outcome when the call was answered with a task (its work has its own span)."""
_CACHE_KEY = "toolweave.telemetry.labels"


@dataclass(frozen=True, slots=True)
class CallLabels:
    """What the call metrics and the call span say about a tool.

    Attributes:
        tool: The exposed name.
        original: The name where the tool was defined.
        origin: `local`, or the mounts it came through from the outside in, each by its prefix
            (by the mounted server's name when it has none): `billing/stripe`.
    """

    tool: str
    original: str
    origin: str


def labels_for(tool: Tool) -> CallLabels:
    """The labels of an exposed tool, from the steps that made it (mounts are `Prefix` steps)."""
    lineage = tool.lineage()
    mounts = [step.prefix or step.child for made in lineage for step in made.transforms if isinstance(step, Prefix)]
    return CallLabels(tool.name, lineage[-1].name, "/".join(mounts) or "local")  # (the last: as first defined)


def _labels(catalog: ToolCatalog, name: str) -> CallLabels:
    """The labels of the tool exposed as `name`, cached with the catalog."""
    cache: dict[str, CallLabels] = catalog.cache.setdefault(_CACHE_KEY, {})
    labels = cache.get(name)
    if labels is None:
        entry = catalog.entries.get(name)
        if entry is None:
            return CallLabels(UNKNOWN, UNKNOWN, UNKNOWN)
        labels = cache[name] = labels_for(entry.tool)
    return labels


class CallObserver:
    """Observes the calls a served server answers (built when serving starts, if anything listens)."""

    def __init__(self, *, tracing: bool, metrics: bool) -> None:
        self.tracing = tracing
        self.metrics = metrics

    @classmethod
    def detect(cls) -> CallObserver | None:
        """An observer for the providers configured now, or None when there are none."""
        tracing, metrics = tracing_configured(), metrics_configured()
        return cls(tracing=tracing, metrics=metrics) if tracing or metrics else None

    def start(self, catalog: ToolCatalog, name: str) -> ObservedCall:
        """Start observing a call of the tool exposed as `name`."""
        entry = catalog.entries.get(name) if self.metrics else None
        return ObservedCall(self, _labels(catalog, name), entry.tool if entry is not None else None)


class ObservedCall:
    """One observed call: a context manager around its request, told how it failed (`failed`) or
    what it answered (`answered`). A call answered with a task (`handed_out`) is observed until
    its work ends (`task_work`): it is counted once, with its work's outcome and duration."""

    __slots__ = (
        "_answer",
        "_exposed",
        "_failure",
        "_holds",
        "_metrics",
        "_span",
        "_started",
        "_task",
        "labels",
    )

    def __init__(self, observer: CallObserver, labels: CallLabels, exposed: Tool | None = None) -> None:
        self.labels = labels
        self._exposed = exposed  # (with metrics) its name labels middleware's counters (`events.note_called`)
        self._span: Span | None = recording_span() if observer.tracing else None
        self._metrics = observer.metrics
        self._failure: BaseException | None = None
        self._answer = "ok"
        self._started = 0.0
        self._holds = 0  # the request, and the task's work if it has one: the call ends with the last
        self._task = False

    def serves(self, ctx: Context) -> None:
        """The call runs with the request `ctx`: with metrics, middleware counters label it by
        the exposed name (`events.note_called`)."""
        if self._exposed is not None:
            note_called(ctx, self._exposed)

    def failed(self, error: BaseException) -> None:
        """The call failed with `error` (its client sees an error result or message)."""
        self._failure = error

    def answered(self, is_error: bool, needs_input: bool = False) -> None:
        """The call answered: an `isError` result (`is_error`), or a request for client input."""
        self._answer = "input_required" if needs_input else "tool_error" if is_error else "ok"

    def handed_out(self) -> None:
        """The request answered with a task: its span's outcome is `task`; the call goes on."""
        self._task = True

    def task_work(self) -> TaskWork:
        """The observation of the call's work as a task (it holds the call open from now on)."""
        self._holds += 1
        return TaskWork(self, self._span)

    def work_ended(self, status: str, result: Mapping[str, Any] | None) -> None:
        """How the call's work as a task ended: `completed` (with its result), `failed`,
        `cancelled`, or `input` (it asked for input before it became a task)."""
        if status == "completed":
            self.answered(bool(result and result.get("isError")))
        elif status == "input":
            self.answered(False, needs_input=True)
        elif self.failure is None:  # (a failure the call told is the more precise outcome)
            self._answer = "cancelled" if status == "cancelled" else INTERNAL

    @property
    def failure(self) -> BaseException | None:
        """The error the call failed with, if it did."""
        return self._failure

    def outcome(self) -> str:
        """What became of the call so far."""
        return outcome_of(self._failure) if self._failure is not None else self._answer

    def __enter__(self) -> ObservedCall:
        labels = self.labels
        if self._span is not None:
            self._span.set_attributes({ORIGIN: labels.origin, ORIGINAL_NAME: labels.original})
            if labels.tool == UNKNOWN:  # a name no tool has names no span: a client could make one per call
                name_no_target("tools/call")
        if self._metrics:
            INSTRUMENTS.active.add(1, {TOOL_NAME: labels.tool, ORIGIN: labels.origin})
        self._started = time.perf_counter()
        self._holds += 1
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is not None and self._failure is None:
            self._failure = exc
        if self._span is not None:
            outcome = TASK if self._task else self.outcome()
            attributes: dict[str, Any] = {OUTCOME: outcome}
            if outcome == INTERNAL and self._failure is not None:
                attributes[INCIDENT] = incident_id(self._failure)
            self._span.set_attributes(attributes)
        self.release()

    def release(self) -> None:
        """One holder is done with the call; the last one records it."""
        self._holds -= 1
        if self._holds or not self._metrics:
            return
        elapsed = time.perf_counter() - self._started
        labels = self.labels
        INSTRUMENTS.active.add(-1, {TOOL_NAME: labels.tool, ORIGIN: labels.origin})
        # (a new dict for every point: the SDK may keep it)
        point = {TOOL_NAME: labels.tool, ORIGIN: labels.origin, OUTCOME: self.outcome()}
        INSTRUMENTS.calls.add(1, point)
        INSTRUMENTS.duration.record(elapsed, point)


class TaskWork:
    """The work of a call answered with a task, observed while it runs in the background: a span
    `task <tool>`, a child of the request's span, is current around it (the mounts and upstreams
    it goes through are its children), and the call is recorded when the work ends."""

    __slots__ = ("_attached", "_call", "_request", "_span")

    def __init__(self, call: ObservedCall, request: Span | None) -> None:
        self._call = call
        self._request = request  # the request's span, if recording
        self._span: Span | None = None
        self._attached: Any = None

    def ended(self, status: str, result: Mapping[str, Any] | None) -> None:
        """How the work ended (see `ObservedCall.work_ended`)."""
        self._call.work_ended(status, result)

    def __enter__(self) -> TaskWork:
        request, labels = self._request, self._call.labels
        if request is not None:
            attributes = {
                OPERATION: "execute_tool",
                TOOL_NAME: labels.tool,
                ORIGIN: labels.origin,
                ORIGINAL_NAME: labels.original,
            }
            parent = trace.set_span_in_context(request)
            self._span = TRACER.start_span(span_name("task", labels.tool), context=parent, attributes=attributes)
            self._attached = context_api.attach(trace.set_span_in_context(self._span))
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        call, span = self._call, self._span
        if span is not None:
            context_api.detach(self._attached)
            outcome = call.outcome()
            if call.failure is not None:
                record_failure(span, call.failure)
            elif outcome in ("ok", "tool_error"):
                record_outcome(span, outcome == "tool_error")
            else:
                span.set_attribute(OUTCOME, outcome)
                if outcome == INTERNAL:
                    span.set_status(StatusCode.ERROR)
            span.end()
        call.release()
