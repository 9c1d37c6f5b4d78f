"""`JsonFormatter`: each log record as one JSON object on one line, with the trace it belongs to;
`RedactSecrets`: no secret value in any log record, whoever wrote it.

The record's message, level, logger, time and process id (`pid`: which worker of `--workers`),
every `extra` field (the `Logging` middleware's `tool`, `outcome`, `duration_ms`, `request_id`,
`incident`...) and — when the record is written inside a span with a valid context (a traced
request, or a request that carried trace context) — `trace_id` and `span_id` in the W3C hex form
trace backends search by, so a call's log line and its trace join.

Example:
    >>> import json, logging
    >>> record = logging.LogRecord("toolweave.calls", logging.INFO, "", 1, "tool %s ok", ("add",), None)
    >>> record.outcome = "ok"
    >>> line = json.loads(JsonFormatter().format(record))
    >>> line["message"], line["outcome"], line["logger"]
    ('tool add ok', 'ok', 'toolweave.calls')

A library toolweave uses may log a secret it was handed: the `mcp` SDK logs each upstream's URL
(a `${TOKEN}` expanded into it, its password) and the messages it sends at DEBUG, `httpx` each
request's URL at INFO. `redact_secrets(values)` installs one `RedactSecrets` filter where the
records are written (every handler of the root logger, and uvicorn's loggers, which write to
their own handlers), so every record loses the values before it is written, at any level:

    >>> hide = RedactSecrets(lambda: {"hunter2-0123": "${TOKEN}"})
    >>> url = "http://u:hunter2-0123@h/"
    >>> record = logging.LogRecord("mcp.client", logging.DEBUG, "", 1, "Connecting to %s", (url,), None)
    >>> hide.filter(record), record.getMessage()
    (True, 'Connecting to http://u:${TOKEN}@h/')
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Any

from opentelemetry import trace

from toolweave.core.shown import HIDDEN, SHORTEST_SECRET, longest_first, quoted_forms, shown_url

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}
_NOT_FIELDS = _STANDARD | {"color_message"}  # (uvicorn's message again, with terminal colours)
UVICORN_LOGGERS = ("uvicorn.error", "uvicorn.access", "uvicorn.asgi")
"""Where uvicorn logs: its own handlers, not the root logger's."""


class JsonFormatter(logging.Formatter):
    """Formats a record as one line of JSON (see the module docs for the fields)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,  # which process of `--workers` wrote it
        }
        entry.update((key, value) for key, value in vars(record).items() if key not in _NOT_FIELDS)
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            entry["trace_id"] = trace.format_trace_id(span.trace_id)
            entry["span_id"] = trace.format_span_id(span.span_id)
        if record.exc_info or record.exc_text:
            entry["exception"] = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
        return json.dumps(entry, default=str)


class RedactSecrets(logging.Filter):
    """Replaces every secret value in a record (its message, exception and stack text, and its
    text `extra` fields) with what to show instead; the record is always written.

    `secrets()` gives the values, each with its stand-in (`${TOKEN}`, `***`). It is asked at
    each record (return the same mapping while nothing changed: it is read again only when another
    one comes), so a reloaded config's new values are hidden at once; a value it gave once stays
    hidden (an upstream the reload dropped may still be logging its URL while it closes).
    `passing()` gives values hidden (as `***`) only in the records written while it gives them:
    the secrets injected into the calls running now (`toolweave.transforms.redact.IN_FLIGHT`),
    which may be minted per call and would pile up if kept. Each value is also hidden
    percent-encoded, as a URL shows it. Values shorter than `SHORTEST_SECRET` are left alone.
    """

    def __init__(
        self, secrets: Callable[[], Mapping[str, str]], passing: Callable[[], Collection[str]] = tuple
    ) -> None:
        super().__init__()
        self.secrets = secrets
        self.passing = passing
        self._seen: Mapping[str, str] | None = None
        self._known: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None
        self._with_passing: tuple[frozenset[str], re.Pattern[str] | None] = (frozenset(), None)

    def filter(self, record: logging.LogRecord) -> bool:
        self._learn(self.secrets())
        pattern = self._pattern_with(frozenset(self.passing()))
        if pattern is None:
            return True

        def hide(text: str) -> str:
            return pattern.sub(lambda found: self._known.get(found.group(), HIDDEN), text)

        message = record.getMessage()
        hidden = hide(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = hide(record.exc_text)
        if record.stack_info:
            record.stack_info = hide(record.stack_info)
        for key, value in list(vars(record).items()):
            if key not in _STANDARD and isinstance(value, str):
                setattr(record, key, hide(value))
        return True

    def _learn(self, secrets: Mapping[str, str]) -> None:
        if secrets is self._seen:  # the same mapping as last time: nothing new
            return
        self._seen = secrets
        new = {form: shown for value, shown in secrets.items() for form in _forms(value) if form not in self._known}
        if new:
            self._known.update(new)
            self._pattern = longest_first(self._known)
            self._with_passing = (frozenset(), None)

    def _pattern_with(self, passing: frozenset[str]) -> re.Pattern[str] | None:
        """The pattern matching the known values and `passing` (the last one made, while they are the same)."""
        if not passing:
            return self._pattern
        if self._with_passing[0] != passing:
            forms = [form for value in passing for form in _forms(value)]
            self._with_passing = (passing, longest_first([*self._known, *forms]) if forms else self._pattern)
        return self._with_passing[1]


def _forms(secret: str) -> Collection[str]:
    """`secret` in each form a message may quote it; none when it is too short to hide."""
    return quoted_forms(secret) if len(secret) >= SHORTEST_SECRET else ()


class HideUrlSecrets(logging.Filter):
    """A record's URL arguments without secret-looking query values (`shown_url`): uvicorn's access
    log writes each request's path with its query string, and a client that sends its bearer token
    there (`?access_token=...`, which the server refuses) must not see it written to the log; httpx
    logs each request's URL (an API key an OpenAPI server sends as `?api_key=`).

    Example:
        >>> line = '%s - "%s %s HTTP/%s" %d'
        >>> args = ("127.0.0.1:5000", "POST", "/mcp?access_token=eyJhbGciOi&q=1", "1.1", 401)
        >>> record = logging.LogRecord("uvicorn.access", logging.INFO, "", 1, line, args, None)
        >>> HideUrlSecrets().filter(record), record.getMessage()
        (True, '127.0.0.1:5000 - "POST /mcp?access_token=***&q=1 HTTP/1.1" 401')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(_with_query(arg) is not None for arg in args):
            record.args = tuple(shown_url(text) if (text := _with_query(arg)) is not None else arg for arg in args)
        return True


def _with_query(arg: Any) -> str | None:
    """A log argument as text when it is a path or URL with a query (a string, or httpx's `URL`)."""
    text = arg if isinstance(arg, str) else str(arg) if type(arg).__name__ == "URL" else None
    return text if text is not None and "?" in text else None


class WithoutTraceback(logging.Filter):
    """A record without its traceback (the message stays): for a library that logs an expected
    failure with a traceback toolweave reports in a line of its own (the SDK's SSE client logs
    each lost connection with three chained tracebacks; toolweave says "the connection was lost").

    Example:
        >>> import sys
        >>> try:
        ...     raise ConnectionError("peer closed")
        ... except ConnectionError:
        ...     failure = sys.exc_info()
        >>> record = logging.LogRecord("mcp.client.sse", logging.ERROR, "", 1, "Error in sse_reader", (), failure)
        >>> WithoutTraceback().filter(record), record.exc_info, record.getMessage()
        (True, None, 'Error in sse_reader')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True


def quiet_library_logs(level: int) -> None:
    """Above DEBUG, keep libraries from repeating at length what toolweave logs in its own words:
    the SDK's SSE client's tracebacks for a lost upstream connection (`WithoutTraceback`), and
    watchfiles' INFO line for every change in a watched config's folder (toolweave logs each
    reload, and what it rejected)."""
    if level <= logging.DEBUG:
        return
    sse = logging.getLogger("mcp.client.sse")
    if not any(isinstance(found, WithoutTraceback) for found in sse.filters):
        sse.addFilter(WithoutTraceback())
    logging.getLogger("watchfiles").setLevel(max(level, logging.WARNING))


URL_LOGGERS = ("uvicorn.access", "httpx", "httpx2")
"""The loggers that write whole URLs: uvicorn's access log (every served request), httpx's
request lines (every call to an HTTP upstream or API, at INFO)."""


def hide_url_secrets_in_library_logs() -> None:
    """Install one `HideUrlSecrets` on each of `URL_LOGGERS`."""
    for name in URL_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(found, HideUrlSecrets) for found in logger.filters):
            logger.addFilter(HideUrlSecrets())


def redact_secrets(
    secrets: Callable[[], Mapping[str, str]], passing: Callable[[], Collection[str]] = tuple
) -> RedactSecrets:
    """Install one `RedactSecrets(secrets, passing)` on every handler of the root logger (as
    `logging.basicConfig` made them) and on uvicorn's loggers, in place of one installed before.

    A handler added later (an OpenTelemetry log exporter) gets it from the caller.
    """
    redact = RedactSecrets(secrets, passing)
    for handler in logging.getLogger().handlers:
        _replace(handler, redact)
    for name in UVICORN_LOGGERS:
        _replace(logging.getLogger(name), redact)
    return redact


def _replace(where: logging.Filterer, redact: RedactSecrets) -> None:
    for old in [found for found in where.filters if isinstance(found, RedactSecrets)]:
        where.removeFilter(old)
    where.addFilter(redact)
