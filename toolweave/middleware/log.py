"""`Logging`: one structured stdlib `logging` record per tool call.

Each call produces exactly one record on the logger `toolweave.calls` (configurable), with the
message `tool <name> <outcome> in <ms> ms` and these `extra` fields, ready for a JSON formatter:

- `tool`: the exposed tool name;
- `duration_ms`: wall time of the rest of the chain, in milliseconds;
- `outcome`: `ok`, `tool_error` (an `isError` result or a `ToolError`), `timeout`
  (`ToolTimeout`), `cancelled`, `input_required` / `missing_capability` (the tool asked the
  client for something), or `error` (an internal error);
- `request_id`, `client`: from the request `Context`;
- `incident`: on internal errors, the incident id the client sees in the masked message;
- `arguments`: argument names, values `"<redacted>"` unless allow-listed (`allow_args`);
- `request_bytes`, `response_bytes`: with `payload_sizes=True`, the JSON sizes of the
  arguments and of the result.

Middleware only ever sees the exposed, validated arguments: hidden and injected arguments are
filled in later, inside the tool, so their values cannot reach this record (and names in
`tool.hidden` are never logged, even when allow-listed). In a mounted server's chain, a value
its parent injected is an ordinary argument: an allow-listed one that is a secret the parent's
call carries (`FromEnv`, `Secret`) is logged as `[redacted]`. A call refused before it runs — a tool
name that is unknown (or hidden from the caller), arguments that do not validate — never reaches
middleware, so it produces no record here: it is counted in `toolweave.tool.calls` (outcomes
`unknown_tool`, `invalid_arguments`), its span carries that outcome, and a caller asking for a
tool it may not use or sending an argument the server sets is logged on `toolweave.security`.
Through `SearchTools`' `call_tool`, a call that reaches a tool is recorded once, as that tool's;
one naming no tool the caller may use is a `call_tool` call like any other (a `tool_error` record).
When the logger is not enabled for `level`, a call costs one `isEnabledFor` check.

Put `Logging` first (outermost), so it times and classifies everything inside it. Inside a
`Timeout` it still says `timeout` when the call was cancelled because its deadline passed, or
ended after it (a tool that ignored the cancellation: the client got `ToolTimeout`).

Example:
    >>> log_calls = Logging(allow_args=["query"], payload_sizes=True)
    >>> log_calls.logger.name
    'toolweave.calls'
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from pydantic_core import to_json

from toolweave.core.deadlines import past
from toolweave.core.errors import PROTOCOL_ANSWERS, InputRequired, ToolError, ToolTimeout
from toolweave.core.masking import incident_id, is_cancellation
from toolweave.core.result import ToolResult
from toolweave.middleware.base import CallNext, Handler, Middleware, ToolCall
from toolweave.transforms.redact import IN_FLIGHT

REDACTED = "<redacted>"


def _as_it_is(value: Any) -> Any:
    return value


def payload_size(value: Any) -> int:
    """The length of `value` as JSON (anything pydantic can serialise; others by `str`)."""
    return len(to_json(value, fallback=str))


def result_size(result: ToolResult) -> int:
    """The JSON size of a result's content blocks and structured content."""
    size = payload_size(result.content) if result.content else 0
    if result.structured_content is not None:
        size += payload_size(result.structured_content)
    return size


class Logging(Middleware):
    """Log one structured record per call.

    Args:
        logger: A logger or a logger name (default `toolweave.calls`).
        level: The record level (default `INFO`).
        allow_args: Argument names whose values may be logged; every other value is redacted.
        log_arguments: Include the `arguments` field at all (names, redacted values).
        payload_sizes: Add `request_bytes` and `response_bytes`.
        tools: Which tools this applies to (selector, glob, list of globs, predicate).
    """

    def __init__(
        self,
        logger: str | logging.Logger = "toolweave.calls",
        *,
        level: int = logging.INFO,
        allow_args: Iterable[str] = (),
        log_arguments: bool = True,
        payload_sizes: bool = False,
        tools: Any = None,
    ) -> None:
        super().__init__(tools=tools)
        if isinstance(allow_args, str):
            raise TypeError("allow_args takes a list of argument names, not a single string")
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level = level
        self.allow_args = frozenset(allow_args)
        if self.allow_args:  # a value a parent injected reaches a mounted child's chain as an argument
            IN_FLIGHT.watched = True  # (the calls carrying secrets count them in flight: `redact`)
        self.log_arguments = log_arguments
        self.payload_sizes = payload_sizes

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return await (call_next(call) if self._off(call) else self._logged(call, call_next))

    def bind_tool(self, call_next: Handler) -> Handler:
        """A call passes straight through (no coroutine of its own) while the logger is off."""
        return self.bind_skippable(Logging, call_next, self._off, self._logged)

    def _off(self, call: ToolCall) -> bool:
        return not self.logger.isEnabledFor(self.level)

    async def _logged(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        start = time.perf_counter()
        deadline = call.ctx.deadline
        outcome = "error"
        incident: str | None = None
        result: ToolResult | None = None
        try:
            result = await call_next(call)
            outcome = "timeout" if past(deadline) else "tool_error" if result.is_error else "ok"
            return result
        except ToolTimeout:
            outcome = "timeout"
            raise
        except ToolError:
            outcome = "tool_error"
            raise
        except PROTOCOL_ANSWERS as answer:
            outcome = "input_required" if isinstance(answer, InputRequired) else "missing_capability"
            raise
        except BaseException as error:
            if is_cancellation(error):
                # Inside a `Timeout`, the deadline's cancellation reaches us before `ToolTimeout`.
                outcome = "timeout" if past(deadline) else "cancelled"
            else:
                incident = incident_id(error)  # the id the masked client message will carry
            raise
        finally:
            self._emit(call, outcome, (time.perf_counter() - start) * 1000.0, incident, result)

    def _emit(
        self,
        call: ToolCall,
        outcome: str,
        duration_ms: float,
        incident: str | None,
        result: ToolResult | None,
    ) -> None:
        ctx = call.ctx
        name = call.tool.name
        extra: dict[str, Any] = {
            "tool": name,
            "duration_ms": round(duration_ms, 3),
            "outcome": outcome,
            "request_id": ctx.request_id,
            "client": ctx.client.name if ctx.client is not None else None,
        }
        if incident is not None:
            extra["incident"] = incident
        if self.log_arguments:
            extra["arguments"] = self.redact(call)
        if self.payload_sizes:
            extra["request_bytes"] = payload_size(call.arguments)
            extra["response_bytes"] = result_size(result) if result is not None else 0
        self.logger.log(self.level, "tool %s %s in %.2f ms", name, outcome, duration_ms, extra=extra)

    def redact(self, call: ToolCall) -> dict[str, Any]:
        """The call's arguments with every value not allow-listed replaced by `"<redacted>"`."""
        hidden = call.tool.hidden
        allowed = self.allow_args
        shown = IN_FLIGHT.scrub if IN_FLIGHT.counts else _as_it_is  # a secret a parent injected: `[redacted]`
        return {
            key: shown(value) if key in allowed and key not in hidden else REDACTED
            for key, value in call.arguments.items()
            if key not in hidden
        }
