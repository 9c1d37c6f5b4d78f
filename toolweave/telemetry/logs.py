"""`JsonFormatter`: each log record as one JSON object on one line, with the trace it belongs to.

The record's message, level, logger and time, every `extra` field (the `Logging` middleware's
`tool`, `outcome`, `duration_ms`, `request_id`, `incident`...) and — when the record is written
inside a span with a valid context (a traced request, or a request that carried trace context) —
`trace_id` and `span_id` in the W3C hex form trace backends search by, so a call's log line and
its trace join.

Example:
    >>> import json, logging
    >>> record = logging.LogRecord("toolweave.calls", logging.INFO, "", 1, "tool %s ok", ("add",), None)
    >>> record.outcome = "ok"
    >>> line = json.loads(JsonFormatter().format(record))
    >>> line["message"], line["outcome"], line["logger"]
    ('tool add ok', 'ok', 'toolweave.calls')
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from opentelemetry import trace

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """Formats a record as one line of JSON (see the module docs for the fields)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update((key, value) for key, value in vars(record).items() if key not in _STANDARD)
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            entry["trace_id"] = trace.format_trace_id(span.trace_id)
            entry["span_id"] = trace.format_span_id(span.span_id)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)
