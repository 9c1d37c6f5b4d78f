"""What `toolweave serve` needs beside its command: its options, the checks they pass first,
reloading with `--watch`, the worker processes of `--workers` (and a worker's watch on its
parent), and the line saying where the server listens.

Flags that cannot go together are refused with exit status 2 before anything starts:

Example:
    >>> try:
    ...     check_http_only(["--port"], http=False)
    ... except typer.Exit as done:
    ...     print("exit status", done.exit_code)
    exit status 2
"""

from __future__ import annotations

import dataclasses
import json
import logging
import socket
from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum
from typing import Annotated

import anyio
import typer
from rich.markup import escape

from toolweave.cli_compose import Failure
from toolweave.cli_logging import hide_secrets_in_logs
from toolweave.cli_output import fail, stderr, warn
from toolweave.config import Composed
from toolweave.config.live import LiveServer, reload_on_change
from toolweave.core.errors import ConfigError
from toolweave.core.extras import installed
from toolweave.store import Store


class Transport(StrEnum):
    """How `serve` talks to clients."""

    stdio = "stdio"
    http = "http"


# serve's options; their defaults, and the one-line ones (--transport, --host, the hidden flags), are in its signature
PortOption = Annotated[
    int, typer.Option(min=0, max=65535, metavar="PORT", help="HTTP: the port to listen on (0: any free one).")
]
MaxSessionsOption = Annotated[
    int, typer.Option(min=1, metavar="COUNT", help="HTTP: the most handshake-era sessions at once (then 503).")
]
SessionIdleTimeoutOption = Annotated[
    float,
    typer.Option(min=1, metavar="SECONDS", help="HTTP: seconds before an idle handshake-era session is closed."),
]
MaxBodySizeOption = Annotated[
    int, typer.Option(min=1024, metavar="BYTES", help="HTTP: the largest request body in bytes (then 413).")
]
LimitConcurrencyOption = Annotated[
    int,
    typer.Option(min=1, metavar="COUNT", help="HTTP: the most connections and requests in progress (then 503)."),
]
KeepAliveOption = Annotated[
    int,
    typer.Option(min=1, metavar="SECONDS", help="HTTP: seconds an idle keep-alive connection is kept open."),
]
LegacySseOption = Annotated[
    bool,
    typer.Option(
        "--legacy-sse", help="HTTP: also serve the legacy HTTP+SSE transport (/sse, /messages/) for old clients."
    ),
]
MetricsOption = Annotated[
    bool,
    typer.Option(
        "--metrics", help="HTTP: serve Prometheus metrics at /metrics (needs: pip install 'toolweave[prometheus]')."
    ),
]
MetricsPublicOption = Annotated[
    bool,
    typer.Option(
        "--metrics-public",
        help="With server.auth: serve /metrics to anyone (by default only to callers with --metrics-scope).",
    ),
]
MetricsScopeOption = Annotated[
    str | None,
    typer.Option(
        "--metrics-scope",
        metavar="SCOPES",
        help="With server.auth: the scopes a caller needs for /metrics, space-separated "
        "(default: toolweave:metrics; '' = any verified caller).",
    ),
]
GraceOption = Annotated[
    float,
    typer.Option(
        min=0,
        metavar="SECONDS",
        help="On SIGTERM/SIGINT/SIGHUP: seconds the calls in flight get to finish (the rest are answered).",
    ),
]
WatchOption = Annotated[
    bool,
    typer.Option(
        "--watch",
        help="Reload the config file when it changes (a broken file is logged; the last good one serves on).",
    ),
]
WorkersOption = Annotated[
    int,
    typer.Option(
        min=1,
        metavar="COUNT",
        help="HTTP: processes serving on the one port (share state with server.store: redis://...).",
    ),
]


HTTP_OPTIONS = (
    "host",
    "port",
    "max_sessions",
    "session_idle_timeout",
    "max_body_size",
    "limit_concurrency",
    "timeout_keep_alive",
    "metrics_scope",
    "workers",
    "reuse_port",
    "no_announce",
)
"""The `serve` options that only HTTP serving reads (besides --legacy-sse and --metrics, refused
with their own reasons)."""


def flags_given(ctx: typer.Context, names: Sequence[str]) -> list[str]:
    """The flags of the options `names` given on the command line (not left to their defaults)."""
    given = [param for param in ctx.command.params if param.name in names]
    # by name: typer vendors its own click, whose ParameterSource is not the click package's
    sources = [getattr(ctx.get_parameter_source(param.name or ""), "name", None) for param in given]
    return [param.opts[0] for param, source in zip(given, sources, strict=True) if source == "COMMANDLINE"]


def check_http_only(given: Sequence[str], *, http: bool) -> None:
    """Refuse (exit 2) HTTP options `given` for a server that does not serve HTTP."""
    if given and not http:
        what = "is an HTTP option" if len(given) == 1 else "are HTTP options"
        fail(f"{' and '.join(given)} {what}: add --transport http", code=2)


def check_serve_flags(
    *, http: bool, legacy_sse: bool, metrics: bool, metrics_public: bool, workers: int, watch: bool
) -> None:
    """Refuse (exit 2) the `serve` flags that cannot go together."""
    if legacy_sse and not http:
        fail("--legacy-sse is an HTTP transport: add --transport http", code=2)
    if metrics and not http:
        fail("--metrics is served over HTTP: add --transport http", code=2)
    if metrics_public and not metrics:
        fail("--metrics-public opens the metrics --metrics serves: add --metrics", code=2)
    if workers > 1 and not http:
        fail("--workers runs several HTTP servers on one port: add --transport http", code=2)
    if workers > 1 and legacy_sse:
        fail("--legacy-sse streams and their posted messages must reach one process: leave out --workers", code=2)
    if workers > 1 and metrics:
        fail(
            "--metrics with --workers: a scrape reaches one worker and reads only its counts (the totals would "
            "jump from worker to worker); run one process per port and scrape each, or push metrics with OTLP "
            "(opentelemetry-instrument toolweave serve ...)",
            code=2,
        )
    if watch and not installed("watchfiles"):
        fail("--watch needs the watchfiles package: pip install 'toolweave[watch]'", code=2)


def install_metrics() -> None:
    """Export metrics to Prometheus for `--metrics` (unless a meter provider is installed), or exit 2
    when the `prometheus` extra is not installed."""
    from toolweave.mcp.health import install_prometheus_provider

    try:
        install_prometheus_provider()
    except ImportError as error:
        fail(str(error), code=2)


def live_composed(composed: Composed, inputs: dict[str, str]) -> Composed:
    """`composed` served by a `LiveServer`, which reloads its file (its logs hide each build's secrets)."""
    live = LiveServer(composed, inputs=inputs)
    hide_secrets_in_logs(lambda: live.composed)
    return dataclasses.replace(composed, server=live)


async def serve_beside(
    serve: Callable[[Composed], Awaitable[Failure | None]],
    composed: Composed,
    *,
    watch: bool = False,
    worker_of: int | None = None,
) -> Failure | None:
    """`serve(composed)`, beside it: with `watch`, reloading the config file of `composed` (from
    `live_composed`) on each change; for a worker of `--workers` (`worker_of`: the parent's pid),
    stopping once that parent has ended (`toolweave.workers.stop_when_orphaned`)."""
    async with anyio.create_task_group() as tasks:
        if watch:
            assert isinstance(composed.server, LiveServer)
            tasks.start_soon(reload_on_change(composed.server))
        if worker_of is not None:
            from toolweave.workers import stop_when_orphaned

            tasks.start_soon(stop_when_orphaned, worker_of)
        failure = await serve(composed)
        tasks.cancel_scope.cancel()
    return failure


def serve_workers_of(
    composed: Composed,
    arguments: list[str],
    *,
    workers: int,
    host: str,
    port: int,
    as_json: bool = False,
    grace: float = 10.0,
) -> None:
    """Serve with `workers` processes on one port (`toolweave.workers`), each run with `arguments`."""
    from toolweave.mcp.serve import served_url
    from toolweave.workers import serve_workers

    if not hasattr(socket, "SO_REUSEPORT"):
        fail("--workers needs SO_REUSEPORT (Linux, macOS, BSD); run one process per port instead", code=2)
    busy = cannot_listen(host, port)
    if busy is not None:
        fail(f"cannot listen on {host}:{port}: {busy}")
    if composed.server.store.shared:
        check_store_once(composed.server.store)
    else:
        warn(
            "each worker keeps its own rate limits, caches, circuits and tasks (a task polled through "
            "another worker is not found): set server.store to share them"
        )
    name = composed.server.name

    def announce(bound: int) -> None:
        announce_serving(name, served_url(host, bound, "/mcp"), as_json=as_json)

    status = serve_workers(arguments, host=host, port=port, workers=workers, on_ready=announce, grace=grace)
    if status:
        fail(f"a worker ended (see above); the others were stopped: exit status {status}", code=status)


def check_store_once(store: Store) -> None:
    """Check `store` as a server holding it starts (`Store.check`), here, before the workers of
    `--workers` start: a store refusing its configuration is reported once and nothing starts
    (each worker reported it, and the parent then stopped the others); an outage is logged, and
    the workers start, each applying the outage policy as any replica does."""

    async def check() -> None:
        store.enter()
        try:
            await store.check()
        finally:
            await store.leave()  # (its connections: each worker makes its own)

    try:
        anyio.run(check)
    except ConfigError as error:
        fail(str(error))


def announce_serving(name: str, url: str, legacy_sse: bool = False, *, as_json: bool = False) -> None:
    """Print where the server listens (once it does) and a client config snippet (as one JSON log line)."""
    if as_json:
        from toolweave.telemetry.logs import JsonFormatter

        fields = {"name": "toolweave.cli", "levelname": "INFO", "levelno": logging.INFO, "url": url}
        record = logging.makeLogRecord({**fields, "msg": f"serving {name!r} at {url}"})
        stderr.out(JsonFormatter().format(record), highlight=False)
        return
    stderr.print(f"Serving {escape(repr(name))} at [bold]{escape(url)}[/bold]", markup=True)
    if legacy_sse:
        from toolweave.mcp.legacy_sse import sse_url

        stderr.print(f"Legacy SSE clients: [bold]{escape(sse_url(url))}[/bold]", markup=True)
    stderr.print("Client config:", markup=False)
    stderr.out(json.dumps({"mcpServers": {name: {"url": url}}}, indent=2), highlight=False)


def ready_line(url: str) -> None:
    """What a worker of `--workers` prints once it listens (its parent announces the URL)."""
    from toolweave.workers import READY

    print(READY, flush=True)


def cannot_listen(host: str, port: int) -> str | None:
    """Why nothing could listen on `host:port` right now (checked before printing the URL), or None."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:
        return error.strerror or str(error)
    return None
