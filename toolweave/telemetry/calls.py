"""The call span and call metrics of a served `tools/call`.

While a server is served with a tracer or meter provider configured (checked when serving
starts), each `tools/call` is observed once, at the server's edge:

- the current span (the SDK's `tools/call <name>` server span) gets `toolweave.origin`,
  `toolweave.tool.original_name` and, when the call ends, `toolweave.outcome` and — for a
  masked failure — `toolweave.incident`, the id the client's message carries (never the message);
- `toolweave.tool.calls`, `toolweave.tool.duration` and `toolweave.tool.active` are recorded
  with the tool's exposed name, its origin and the outcome.

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
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from opentelemetry.trace import Span

from toolweave.core.masking import incident_id
from toolweave.core.tool import Tool
from toolweave.server.mount import Prefix
from toolweave.server.tools import ToolCatalog
from toolweave.telemetry.metrics import INSTRUMENTS
from toolweave.telemetry.outcomes import INTERNAL, outcome_of
from toolweave.telemetry.providers import metrics_configured, tracing_configured
from toolweave.telemetry.spans import INCIDENT, ORIGIN, ORIGINAL_NAME, OUTCOME, TOOL_NAME, recording_span

UNKNOWN = "(unknown)"
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
    mounts: list[str] = []
    made = tool
    while True:
        mounts += [step.prefix or step.child for step in made.transforms if isinstance(step, Prefix)]
        if made.parent is None:
            break
        made = made.parent
    return CallLabels(tool.name, made.name, "/".join(mounts) or "local")  # `made`: the tool as first defined


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
        return ObservedCall(self, _labels(catalog, name))


class ObservedCall:
    """One observed call: a context manager around it, told how it failed (`failed`) or what it
    answered (`answered`)."""

    __slots__ = ("_answer", "_failure", "_metrics", "_span", "_started", "labels")

    def __init__(self, observer: CallObserver, labels: CallLabels) -> None:
        self.labels = labels
        self._span: Span | None = recording_span() if observer.tracing else None
        self._metrics = observer.metrics
        self._failure: BaseException | None = None
        self._answer = "ok"
        self._started = 0.0

    def failed(self, error: BaseException) -> None:
        """The call failed with `error` (its client sees an error result or message)."""
        self._failure = error

    def answered(self, is_error: bool, needs_input: bool = False) -> None:
        """The call answered: an `isError` result (`is_error`), or a request for client input."""
        self._answer = "input_required" if needs_input else "tool_error" if is_error else "ok"

    def __enter__(self) -> ObservedCall:
        labels = self.labels
        if self._span is not None:
            self._span.set_attributes({ORIGIN: labels.origin, ORIGINAL_NAME: labels.original})
        if self._metrics:
            INSTRUMENTS.active.add(1, {TOOL_NAME: labels.tool, ORIGIN: labels.origin})
        self._started = time.perf_counter()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        elapsed = time.perf_counter() - self._started
        failure = self._failure if self._failure is not None else exc
        outcome = outcome_of(failure) if failure is not None else self._answer
        labels = self.labels
        if self._span is not None:
            attributes: dict[str, Any] = {OUTCOME: outcome}
            if outcome == INTERNAL and failure is not None:
                attributes[INCIDENT] = incident_id(failure)
            self._span.set_attributes(attributes)
        if self._metrics:
            INSTRUMENTS.active.add(-1, {TOOL_NAME: labels.tool, ORIGIN: labels.origin})
            point = {TOOL_NAME: labels.tool, ORIGIN: labels.origin, OUTCOME: outcome}  # a new dict: the SDK may keep it
            INSTRUMENTS.calls.add(1, point)
            INSTRUMENTS.duration.record(elapsed, point)
