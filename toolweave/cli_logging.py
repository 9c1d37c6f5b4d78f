"""How the CLI logs: `--log-level` and `--log-format`, to stderr, with secrets kept out.

Every command logs at `--log-level` to stderr (`setup_logging`). Once a config is built, the
values it hides (tokens, keys, what `inject` reads) are taken out of every record
(`hide_secrets_in_logs`); `serve --log-format json` writes one JSON object a line, with a line
per tool call (`log_calls_as_json`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Annotated, Any

import typer

from toolweave.cli_output import as_log_records
from toolweave.config import Composed
from toolweave.telemetry.logs import hide_url_secrets_in_library_logs, redact_secrets
from toolweave.transforms.redact import IN_FLIGHT


class LogLevel(StrEnum):
    """Log levels for `--log-level`."""

    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


class LogFormat(StrEnum):
    """How `serve` writes logs: `text` lines, or one JSON object a line (with a call per line)."""

    text = "text"
    json = "json"


LogOption = Annotated[LogLevel, typer.Option("--log-level", help="Log level (logs go to stderr).")]
LogFormatOption = Annotated[
    LogFormat,
    typer.Option(
        "--log-format",
        help="text, or json: one JSON object a line on stderr, including one line per tool call with its trace id.",
    ),
]


def setup_logging(level: LogLevel) -> None:
    """Logs to stderr at `level`, one line per record (libraries' tracebacks for what toolweave
    reports itself only at DEBUG: `quiet_library_logs`)."""
    from toolweave.telemetry.logs import quiet_library_logs

    logging.basicConfig(stream=sys.stderr, level=level.value.upper(), format="%(levelname)s %(name)s: %(message)s")
    quiet_library_logs(logging.getLogger().level)


def hide_secrets_in_logs(current: Callable[[], Composed]) -> None:
    """Take the secrets of the composition `current()` gives (`Composed.hidden_values`, once per
    build: a reload's new ones count at once), and those injected into the calls running
    (`IN_FLIGHT`: the SDK logs the arguments it sends at DEBUG, a tool may log what it was given),
    out of every log record; and secret-looking query values out of the URLs libraries log."""
    built: list[tuple[Composed, Mapping[str, str]]] = []

    def secrets() -> Mapping[str, str]:
        composed = current()
        if not built or built[0][0] is not composed:
            built[:] = [(composed, composed.hidden_values())]
        return built[0][1]

    redact_secrets(secrets, passing=lambda: IN_FLIGHT.counts)
    IN_FLIGHT.watched = True  # (the calls carrying injected secrets count them in flight from now on)
    hide_url_secrets_in_library_logs()


def log_as_json() -> None:
    """Log every record as a JSON line, the CLI's own warnings and errors too (before the config
    is read: its problems are lines of the same kind)."""
    from toolweave.telemetry.logs import JsonFormatter

    for handler in logging.getLogger().handlers:
        handler.setFormatter(JsonFormatter())
    as_log_records()


def log_calls_as_json(server: Any) -> None:
    """One record per tool call (`Logging`, outermost, unless the server has one) whatever the
    log level (after `log_as_json`)."""
    from toolweave.middleware import Logging

    if not any(isinstance(layer, Logging) for layer in server.middleware):
        server.add_middleware(Logging(), outermost=True)
    logging.getLogger("toolweave.calls").setLevel(logging.INFO)
