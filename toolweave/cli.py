"""The `toolweave` command: serve, list, explain and call a composed server from a config file.

```
toolweave serve examples/gateway.yaml                      # stdio, for an MCP client
toolweave serve examples/gateway.yaml --transport http     # http://127.0.0.1:8000/mcp
toolweave serve --from claude-desktop --with policies.yaml # the servers Claude Desktop runs, + policies
toolweave list examples/gateway.yaml                       # what a client will see
toolweave explain examples/gateway.yaml wx_get_forecast    # how a tool was made
toolweave call examples/gateway.yaml local_add a=1 b=2     # call a tool in-process
toolweave schema > toolweave.schema.json                   # for editor completion
```

An invalid config prints what is wrong (file, key path, reason) and exits with status 1;
nothing is started.

Example:
    >>> try:  # doctest: +ELLIPSIS
    ...     main(["--version"])
    ... except SystemExit as done:
    ...     print("exit status", done.code)
    toolweave ...
    exit status 0
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import json
import logging
import socket
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import anyio
import typer
from rich.console import Console
from rich.markup import escape

from toolweave.cli_arguments import parse_arguments, parse_headers
from toolweave.cli_callers import CallerRefused, admitted, bearer_token, hook_caller, token_caller
from toolweave.config import Composed, build_file, config_schema
from toolweave.config.from_client import build_client
from toolweave.config.live import LiveServer, reload_on_change
from toolweave.core.context import AuthInfo, Context
from toolweave.core.errors import ConfigError, ToolweaveError, UnknownTool
from toolweave.core.names import advice
from toolweave.core.result import ToolResult
from toolweave.explain import explain_server
from toolweave.render import explain_tree, print_json, print_listing, print_tree, print_upstreams
from toolweave.report import listing
from toolweave.telemetry.logs import redact_secrets
from toolweave.transforms.redact import IN_FLIGHT

app = typer.Typer(
    name="toolweave",
    help="Compose MCP tools from a config file: serve them, list them, explain them, call them.",
    epilog="Run 'toolweave COMMAND --help' for examples. Docs: the README's 'Config files and the CLI'.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no `<bool>`-style placeholders on flags
)
stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)
logger = logging.getLogger("toolweave.cli")

ConfigPath = Annotated[Path, typer.Argument(help="The config file (.yaml, .yml, .json or .toml).", show_default=False)]
SourcePath = Annotated[
    Path | None,
    typer.Argument(
        help="The config file (.yaml, .yml, .json or .toml); with --from, the client's config file "
        "(by default, where the client keeps it).",
        show_default=False,
    ),
]


class Client(StrEnum):
    """MCP clients whose config `--from` reads (`toolweave.config.dialects.CLIENTS`)."""

    claude_desktop = "claude-desktop"
    claude_code = "claude-code"
    cursor = "cursor"
    windsurf = "windsurf"
    cline = "cline"
    vscode = "vscode"


FromOption = Annotated[
    Client | None,
    typer.Option(
        "--from",
        help="Serve the MCP servers this client is configured with, each under its name as prefix.",
        show_default=False,
    ),
]
WithOption = Annotated[
    Path | None,
    typer.Option(
        "--with",
        help="With --from: a toolweave config layered over the client's servers (middleware, transforms, ...).",
        show_default=False,
    ),
]
InputOption = Annotated[
    list[str] | None,
    typer.Option(
        "--input",
        metavar="ID=VALUE",
        help="A value for ${input:ID} references (repeatable); before the environment variable ID.",
        show_default=False,
    ),
]


class Transport(StrEnum):
    """How `serve` talks to clients."""

    stdio = "stdio"
    http = "http"


class LogLevel(StrEnum):
    """Log levels for `--log-level`."""

    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


def examples(*commands: str, note: str = "") -> str:
    """A command's `--help` epilog: its examples, each on its own line, as written."""
    lines = "\n".join(f"  {command}" for command in commands)
    return f"\b\nExamples:\n{lines}" + (f"\n\n{note}" if note else "")


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
AllowDown = Annotated[
    bool, typer.Option("--allow-down", help="Exit 0 even when an upstream MCP server could not be started.")
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
    (`IN_FLIGHT`: the SDK logs the arguments it sends at DEBUG), out of every log record."""
    built: list[tuple[Composed, Mapping[str, str]]] = []

    def secrets() -> Mapping[str, str]:
        composed = current()
        if not built or built[0][0] is not composed:
            built[:] = [(composed, composed.hidden_values())]
        return built[0][1]

    redact_secrets(secrets, passing=lambda: IN_FLIGHT.counts)


def log_calls_as_json(server: Any) -> None:
    """Log every record as a JSON line, and one record per tool call (`Logging`, outermost, unless
    the server has one) whatever the log level."""
    from toolweave.middleware import Logging
    from toolweave.telemetry.logs import JsonFormatter

    for handler in logging.getLogger().handlers:
        handler.setFormatter(JsonFormatter())
    if not any(isinstance(layer, Logging) for layer in server.middleware):
        server.add_middleware(Logging(), outermost=True)
    logging.getLogger("toolweave.calls").setLevel(logging.INFO)


def warn(message: str) -> None:
    """Print `warning: message` to stderr."""
    stderr.print(f"[yellow]warning:[/yellow] {escape(message)}", markup=True, highlight=False)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print `error: message` to stderr and exit with `code`."""
    stderr.print(f"[bold red]error:[/bold red] {escape(message)}", markup=True, highlight=False)
    raise typer.Exit(code)


def parse_inputs(pairs: Sequence[str]) -> dict[str, str]:
    """`--input ID=VALUE` pairs as a mapping.

    Example:
        >>> parse_inputs(["github_token=abc", "region=eu=west"])
        {'github_token': 'abc', 'region': 'eu=west'}
    """
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--input {pair!r} is not ID=VALUE")
        found[name] = value
    return found


def compose(
    config: Path | None,
    client: Client | None = None,
    with_file: Path | None = None,
    inputs: Sequence[str] = (),
) -> Composed:
    """Load and build the config (or client `--from` config, with `--with` over it), or exit with its
    error; its secrets are kept out of the logs from then on."""
    try:
        values = parse_inputs(inputs)
    except ValueError as error:
        fail(str(error), code=2)
    if client is None and with_file is not None:
        fail("--with layers a toolweave config over a client's servers: give --from CLIENT too", code=2)
    if client is None and config is None:
        fail("give a config file, or --from CLIENT to use an MCP client's config", code=2)
    try:
        if client is not None:
            composed = build_client(client.value, config, with_file=with_file, inputs=values)
        else:
            assert config is not None
            composed = build_file(config, inputs=values)
    except ConfigError as error:
        fail(str(error))
    hide_secrets_in_logs(lambda: composed)
    return composed


@dataclass(frozen=True)
class Failure:
    """A command's error, returned out of the event loop (an exception raised inside the server's
    lifespan would come out wrapped in an exception group) and reported by `run_composed`."""

    message: str
    code: int = 1


def _compile(composed: Composed) -> Failure | None:
    try:
        composed.server.catalog  # noqa: B018 - compile now, so nothing runs from a bad composition
    except ConfigError as error:
        return Failure(f"{composed.file}: {error}" if composed.file else str(error))
    except (ToolweaveError, TypeError, ValueError) as error:
        logger.debug("composition failed", exc_info=error)
        where = f"{composed.file}: " if composed.file else ""
        return Failure(f"{where}cannot compose the server: {error}")
    return None


def _only_leaf(group: BaseExceptionGroup[Any]) -> BaseException | None:
    """The one exception inside (possibly nested) groups, or None when there are several."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        else:
            leaves.append(item)
    return leaves[0] if len(leaves) == 1 else None


def upstream_states(composed: Composed) -> list[dict[str, Any]]:
    """Each upstream MCP server: its name, what it is (command or URL), its state and why it is
    not up (secrets hidden from each: an error may quote the command or URL it failed on)."""
    states = []
    for remote in composed.remotes:
        state: dict[str, Any] = {"name": remote.name, "target": remote.target.describe(), "state": remote.state}
        if remote.state != "up" and remote.last_error:
            state["error"] = composed.shown(remote.last_error)
        states.append(state)
    return states


def report_upstreams(states: list[dict[str, Any]], allow_down: bool, *, listed: bool = False) -> None:
    """Print each upstream that was not up to stderr (unless `listed`: the output showed every
    upstream's state already); exit 1 when one was not up, unless `allow_down`."""
    down = [state for state in states if state["state"] != "up"]
    for state in [] if listed else down:
        why = f": {state['error']}" if state.get("error") else ""
        stderr.print(
            f"[red]upstream {escape(repr(state['name']))} is {state['state']}[/red] "
            f"({escape(state['target'])}){escape(why)}",
            markup=True,
            highlight=False,
        )
    if down and not allow_down:
        names = ", ".join(repr(state["name"]) for state in down)
        fail(f"{len(down)} upstream(s) could not be started: {names} (--allow-down to go on without them)")


def _warnings(composed: Composed) -> list[str]:
    where = f"{composed.file}: " if composed.file else ""
    found = [where + problem for problem in composed.unknown_tool_keys()]
    found += composed.missing_environment()
    server = composed.server
    if not server.catalog.tools and not server.prompts.catalog.prompts and not composed.remotes:
        found.append(f"{where}the config defines no tools, prompts or resources")
    return found


def run_composed(composed: Composed, work: Callable[[Composed], Awaitable[Any]], *, warnings: bool = True) -> Any:
    """Run `work` with the server's lifespan entered (upstreams started) and its catalog compiled.

    A composition that fails to compile (a name clash, a transform refusing a tool) exits with
    status 1 before `work` starts; `work` reports its own errors by returning a `Failure`.
    Problems that do not stop it (a `tools` key naming no tool, an unset environment variable an
    injection reads, an empty config) are printed as warnings first, unless not `warnings`.
    """

    async def main() -> Any:
        async with composed.running():
            failure = _compile(composed)
            if failure is not None:
                return failure
            for problem in _warnings(composed) if warnings else ():
                warn(problem)
            return await work(composed)

    try:
        result = anyio.run(main)
    except ConfigError as error:
        fail(str(error))
    except BaseExceptionGroup as group:  # raised through the server's lifespan task group
        leaf = _only_leaf(group)
        if isinstance(leaf, SystemExit):  # e.g. uvicorn could not bind; it logged why
            raise typer.Exit(leaf.code if isinstance(leaf.code, int) else 1) from None
        if isinstance(leaf, KeyboardInterrupt):
            raise leaf from None
        raise
    if isinstance(result, Failure):
        fail(result.message, result.code)
    return result


def version_callback(value: bool) -> None:
    """`--version`."""
    if value:
        from toolweave import __version__

        stdout.out(f"toolweave {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=version_callback, is_eager=True, help="Show the version and exit."),
    ] = False,
) -> None:
    """Compose MCP tools from a config file: serve them, list them, explain them, call them."""


@app.command(
    epilog="Examples:\n\n    toolweave schema > toolweave.schema.json\n\n"
    "Then add `# yaml-language-server: $schema=./toolweave.schema.json` as the first line of a YAML config,\n"
    'or `"$schema": "./toolweave.schema.json"` to a JSON config.'
)
def schema() -> None:
    """Print the JSON Schema of config files (for editor completion and validation)."""
    stdout.out(json.dumps(config_schema(), indent=2), highlight=False)


@app.command(
    epilog=examples(
        "toolweave serve examples/gateway.yaml",
        "toolweave serve examples/gateway.yaml --transport http --port 8000",
        "toolweave serve examples/identity.yaml --transport http --port 0      # any free port",
        "toolweave serve --from claude-desktop                                 # Claude Desktop's servers",
        "toolweave serve --from vscode .vscode/mcp.json --with policies.yaml --input token=...",
        "toolweave serve examples/gateway.yaml --transport http --legacy-sse   # + /sse for old clients",
        "toolweave serve examples/gateway.yaml --transport http --metrics --log-format json",
        "toolweave serve gateway.yaml --transport http --workers 2             # 2 processes, one port",
        note="On HTTP the URL (once it listens) and a client config snippet are printed to stderr.\n"
        "examples/gateway.yaml starts ${PYTHON:-python3}: put PYTHON=<a python with mcp> in front.",
    )
)
def serve(
    ctx: typer.Context,
    config: SourcePath = None,
    client: FromOption = None,
    with_file: WithOption = None,
    inputs: InputOption = None,
    transport: Annotated[Transport, typer.Option(help="stdio (for an MCP client) or http.")] = Transport.stdio,
    host: Annotated[str, typer.Option(metavar="ADDRESS", help="HTTP: the address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, metavar="PORT", help="HTTP: the port to listen on (0: any free one).")
    ] = 8000,
    max_sessions: Annotated[
        int, typer.Option(min=1, metavar="COUNT", help="HTTP: the most handshake-era sessions at once (then 503).")
    ] = 1000,
    session_idle_timeout: Annotated[
        float,
        typer.Option(min=1, metavar="SECONDS", help="HTTP: seconds before an idle handshake-era session is closed."),
    ] = 300,
    max_body_size: Annotated[
        int, typer.Option(min=1024, metavar="BYTES", help="HTTP: the largest request body in bytes (then 413).")
    ] = 4 * 1024 * 1024,
    limit_concurrency: Annotated[
        int,
        typer.Option(min=1, metavar="COUNT", help="HTTP: the most connections and requests in progress (then 503)."),
    ] = 1000,
    timeout_keep_alive: Annotated[
        int,
        typer.Option(min=1, metavar="SECONDS", help="HTTP: seconds an idle keep-alive connection is kept open."),
    ] = 5,
    legacy_sse: Annotated[
        bool,
        typer.Option(
            "--legacy-sse", help="HTTP: also serve the legacy HTTP+SSE transport (/sse, /messages/) for old clients."
        ),
    ] = False,
    metrics: Annotated[
        bool,
        typer.Option(
            "--metrics", help="HTTP: serve Prometheus metrics at /metrics (needs: pip install 'toolweave[prometheus]')."
        ),
    ] = False,
    metrics_public: Annotated[
        bool,
        typer.Option(
            "--metrics-public",
            help="With server.auth: serve /metrics to anyone (by default only to callers with --metrics-scope).",
        ),
    ] = False,
    metrics_scope: Annotated[
        str | None,
        typer.Option(
            "--metrics-scope",
            metavar="SCOPES",
            help="With server.auth: the scopes a caller needs for /metrics, space-separated "
            "(default: toolweave:metrics; '' = any verified caller).",
        ),
    ] = None,
    grace: Annotated[
        float,
        typer.Option(
            min=0,
            metavar="SECONDS",
            help="On SIGTERM/SIGINT: seconds the calls in flight get to finish (the rest are answered).",
        ),
    ] = 10.0,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Reload the config file when it changes (a broken file is logged; the last good one serves on).",
        ),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            metavar="COUNT",
            help="HTTP: processes serving on the one port (share state with server.store: redis://...).",
        ),
    ] = 1,
    reuse_port: Annotated[bool, typer.Option("--reuse-port", hidden=True)] = False,
    no_announce: Annotated[bool, typer.Option("--no-announce", hidden=True)] = False,
    no_warnings: Annotated[bool, typer.Option("--no-warnings", hidden=True)] = False,  # (a worker but the first)
    log_level: LogOption = LogLevel.warning,
    log_format: LogFormatOption = LogFormat.text,
) -> None:
    """Serve the composed server over stdio (default) or streamable HTTP (with /healthz and /readyz)."""
    setup_logging(log_level)
    http = transport is Transport.http
    _check_serve_flags(
        http=http, legacy_sse=legacy_sse, metrics=metrics, metrics_public=metrics_public, workers=workers, watch=watch
    )
    _check_http_only(_given(ctx, HTTP_OPTIONS), http=http)
    if watch and (client is not None or config is None):
        fail("--watch reloads a toolweave config file: give CONFIG (not --from)", code=2)
    if metrics:
        from toolweave.mcp.health import install_prometheus_provider

        try:
            install_prometheus_provider()
        except ImportError as error:
            fail(str(error), code=2)
    composed = compose(config, client, with_file, inputs or ())
    as_json = log_format is LogFormat.json
    if as_json:
        log_calls_as_json(composed.server)
    if workers > 1:
        arguments = ["serve", *([str(config)] if config is not None else [])]
        arguments += ["--from", client.value] if client is not None else []
        arguments += ["--with", str(with_file)] if with_file is not None else []
        arguments += [f"--input={value}" for value in inputs or ()]
        arguments += ["--transport", "http", "--host", host, "--log-level", log_level.value]
        arguments += ["--max-sessions", str(max_sessions), "--session-idle-timeout", str(session_idle_timeout)]
        arguments += ["--max-body-size", str(max_body_size), "--limit-concurrency", str(limit_concurrency)]
        arguments += ["--timeout-keep-alive", str(timeout_keep_alive)]
        arguments += ["--log-format", log_format.value]
        arguments += ["--grace", str(grace), *(["--watch"] if watch else [])]  # each worker reloads its own build
        serve_workers_of(composed, arguments, workers=workers, host=host, port=port, as_json=as_json, grace=grace)
        return
    if watch:
        composed = live_composed(composed, parse_inputs(inputs or ()))

    async def work(composed: Composed) -> Failure | None:
        if not watch:
            return await serve_composed(composed)
        async with anyio.create_task_group() as tasks:
            assert isinstance(composed.server, LiveServer)
            tasks.start_soon(reload_on_change(composed.server))
            failure = await serve_composed(composed)
            tasks.cancel_scope.cancel()
        return failure

    async def serve_composed(composed: Composed) -> Failure | None:
        server = composed.server
        if transport is Transport.stdio:
            await server.run_async("stdio", grace=grace)
            return None
        busy = None if reuse_port else _cannot_listen(host, port)
        if busy is not None:
            return Failure(f"cannot listen on {host}:{port}: {busy}")

        def announce(url: str) -> None:
            _announce(server.name, url, legacy_sse, as_json=as_json)

        options: dict[str, Any] = {
            "host": host,
            "port": port,
            "log_level": log_level.value,
            "max_sessions": max_sessions,
            "session_idle_timeout": session_idle_timeout,
            "max_request_body_size": max_body_size,
            "limit_concurrency": limit_concurrency,
            "timeout_keep_alive": timeout_keep_alive,
            "legacy_sse": legacy_sse,
            "metrics": metrics,
            "metrics_public": metrics_public,
            "on_ready": _ready_line if no_announce else announce,
            "reuse_port": reuse_port,
            # a worker of --workers: the next request of a handshake-era session may reach another worker
            "stateless": reuse_port,
            "grace": grace,
        }
        if metrics_scope is not None:
            options["metrics_scopes"] = tuple(metrics_scope.split())
        if composed.authenticate is not None:
            options["authenticate"] = composed.authenticate
        options.update(composed.auth or {})
        await server.run_async("http", **options)
        return None

    with contextlib.suppress(KeyboardInterrupt):
        run_composed(composed, work, warnings=not no_warnings)
    from toolweave.mcp.shutdown import exit_past_running_threads

    exit_past_running_threads()


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


def _given(ctx: typer.Context, names: Sequence[str]) -> list[str]:
    """The flags of the options `names` given on the command line (not left to their defaults)."""
    given = [param for param in ctx.command.params if param.name in names]
    # by name: typer vendors its own click, whose ParameterSource is not the click package's
    sources = [getattr(ctx.get_parameter_source(param.name or ""), "name", None) for param in given]
    return [param.opts[0] for param, source in zip(given, sources, strict=True) if source == "COMMANDLINE"]


def _check_http_only(given: Sequence[str], *, http: bool) -> None:
    """Refuse (exit 2) HTTP options `given` for a server that does not serve HTTP."""
    if given and not http:
        what = "is an HTTP option" if len(given) == 1 else "are HTTP options"
        fail(f"{' and '.join(given)} {what}: add --transport http", code=2)


def _check_serve_flags(
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
    if watch and importlib.util.find_spec("watchfiles") is None:
        fail("--watch needs the watchfiles package: pip install 'toolweave[watch]'", code=2)


def live_composed(composed: Composed, inputs: dict[str, str]) -> Composed:
    """`composed` served by a `LiveServer`, which reloads its file (its logs hide each build's secrets)."""
    live = LiveServer(composed, inputs=inputs)
    hide_secrets_in_logs(lambda: live.composed)
    return dataclasses.replace(composed, server=live)


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
    busy = _cannot_listen(host, port)
    if busy is not None:
        fail(f"cannot listen on {host}:{port}: {busy}")
    if not composed.server.store.shared:
        warn(
            "each worker keeps its own rate limits, caches, circuits and tasks (a task polled through "
            "another worker is not found): set server.store to share them"
        )
    name = composed.server.name

    def announce(bound: int) -> None:
        _announce(name, served_url(host, bound, "/mcp"), as_json=as_json)

    status = serve_workers(arguments, host=host, port=port, workers=workers, on_ready=announce, grace=grace)
    if status:
        fail(f"a worker ended (see above); the others were stopped: exit status {status}", code=status)


def _announce(name: str, url: str, legacy_sse: bool = False, *, as_json: bool = False) -> None:
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


def _ready_line(url: str) -> None:
    """What a worker of `--workers` prints once it listens (its parent announces the URL)."""
    from toolweave.workers import READY

    print(READY, flush=True)


def _cannot_listen(host: str, port: int) -> str | None:
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


@app.command(
    "list",
    epilog=examples(
        "WEATHER_API_KEY=demo-key toolweave list examples/wrap.yaml",
        "PYTHON=$PWD/.venv/bin/python toolweave list examples/gateway.yaml",
        "toolweave list --from cursor",
        note="Exits 1 when an upstream MCP server cannot be started (its error is shown); --allow-down goes on.",
    ),
)
def list_(
    config: SourcePath = None,
    client: FromOption = None,
    with_file: WithOption = None,
    inputs: InputOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print JSON: each list as the wire sends it (camelCase), plus what each component needs "
            "(access) and each upstream's state (upstreams).",
        ),
    ] = False,
    scopes: Annotated[
        str | None,
        typer.Option(
            "--scopes", metavar="A,B", help="Show what a caller with these scopes (a,b) sees.", show_default=False
        ),
    ] = None,
    as_token: Annotated[
        str | None,
        typer.Option(
            "--as-token",
            metavar="TOKEN",
            help="Show what this bearer token's caller sees (server.auth).",
            show_default=False,
        ),
    ] = None,
    allow_down: AllowDown = False,
    log_level: LogOption = LogLevel.warning,
) -> None:
    """Show the tools, prompts and resources a client will see, and the state of each upstream.

    Without --scopes or --as-token every component is shown, with what a caller needs to see it.
    """
    setup_logging(log_level)
    if scopes is not None and as_token is not None:
        fail("give --scopes or --as-token, not both", code=2)
    composed = compose(config, client, with_file, inputs or ())

    async def work(composed: Composed) -> dict[str, Any] | Failure:
        caller = await _listing_caller(composed, scopes, as_token)
        if isinstance(caller, Failure):
            return caller
        data = await listing(composed.server, caller)
        data["upstreams"] = upstream_states(composed)
        return data

    data = run_composed(composed, work)
    if as_json:
        stdout.out(json.dumps(data, indent=2, ensure_ascii=False), highlight=False)
    else:
        print_listing(stdout, data)  # with every upstream's state
    report_upstreams(data["upstreams"], allow_down, listed=not as_json)


async def _listing_caller(composed: Composed, scopes: str | None, token: str | None) -> Context | Failure | None:
    """The caller `list --scopes/--as-token` lists for (None: the operator, who sees everything),
    or why the HTTP edge would refuse it (`toolweave.cli_callers`)."""
    verifier = (composed.auth or {}).get("auth")
    try:
        if scopes is not None:
            granted = tuple(scope.strip() for scope in scopes.split(",") if scope.strip())
            return Context(auth=admitted(verifier, AuthInfo(subject="toolweave-list", scopes=granted)))
        if token is None:
            return None
        if verifier is None:
            return Failure("--as-token needs a server.auth section in the config (to verify the token)")
        return Context(auth=await token_caller(verifier, token))
    except CallerRefused as refused:
        return Failure(str(refused))


@app.command(
    epilog=examples(
        "toolweave explain examples/wrap.yaml",
        "toolweave explain examples/wrap.yaml forecast --json",
        "toolweave explain --from claude-code --with policies.yaml",
        note="With --from, a TOOL is named with --tool (the argument is the client's config file).",
    )
)
def explain(
    config: SourcePath = None,
    tool: Annotated[
        str | None, typer.Argument(metavar="TOOL", help="Only this tool (its exposed name).", show_default=False)
    ] = None,
    client: FromOption = None,
    with_file: WithOption = None,
    inputs: InputOption = None,
    only: Annotated[
        str | None,
        typer.Option("--tool", metavar="TOOL", help="Only this tool (its exposed name).", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a tree.")] = False,
    allow_down: AllowDown = False,
    log_level: LogOption = LogLevel.warning,
) -> None:
    """Show how each tool was made: origin, transforms, middleware, schema before and after."""
    setup_logging(log_level)
    if tool is not None and only is not None:
        fail("name the tool once: as an argument or with --tool", code=2)
    if client is not None and config is not None and tool is None and only is None and not config.exists():
        fail(f"no file {str(config)!r}: with --from, name the tool with --tool {config}", code=2)
    tool = tool or only
    composed = compose(config, client, with_file, inputs or ())

    states: list[dict[str, Any]] = []

    async def work(composed: Composed) -> list[dict[str, Any]] | Failure:
        states.extend(upstream_states(composed))
        try:
            return [item.to_dict() for item in explain_server(composed.server, tool).tools]
        except UnknownTool:
            names = [known.name for known in composed.server.catalog.tools]
            return Failure(_unknown_tool(names, tool or "", states))

    explained = run_composed(composed, work)
    if as_json:
        stdout.out(json.dumps(explained, indent=2, ensure_ascii=False), highlight=False)
    else:
        print_tree(stdout, explain_tree(explained, composed.server.name))
        print_upstreams(stdout, states)
    report_upstreams(states, allow_down, listed=not as_json)


def _unknown_tool(names: list[str], name: str, states: list[dict[str, Any]]) -> str:
    """Why `name` is no tool: the nearest of `names` (those the asker may see; or every one of
    them), and the upstreams that are not up. A tool hidden from the asker is unknown in the same
    words as one that does not exist: `names` do not hold it, and no hint names `name` itself."""
    names = [known for known in names if known != name]
    down = [f"upstream {state['name']!r} is {state['state']}" for state in states if state["state"] != "up"]
    said = advice(name, names, f"tools: {', '.join(names) or 'none'}")
    return f"unknown tool {name!r}; {said}" + (f" ({'; '.join(down)})" if down else "")


def _result_json(result: ToolResult) -> Any:
    """The result exactly as MCP sends it (`content`, `structuredContent`, `isError`)."""
    from toolweave.mcp.convert import wire_result

    return wire_result(result)


def print_result(result: ToolResult, as_json: bool) -> None:
    """A call's result: text blocks, or structured content as JSON when there is no text."""
    if as_json:
        stdout.out(json.dumps(_result_json(result), indent=2, ensure_ascii=False, default=str), highlight=False)
        return
    if result.is_error:
        fail(result.text or "the tool reported an error")
    if result.text:
        stdout.out(result.text, highlight=False)
    elif result.structured_content is not None:
        print_json(stdout, result.structured_content)
    for block in result.content:
        kind = getattr(block, "type", type(block).__name__)
        if kind != "text":
            stdout.out(f"[{kind} content]", highlight=False)


@app.command(
    epilog=examples(
        "WEATHER_API_KEY=demo-key toolweave call examples/wrap.yaml forecast city=Paris days=2",
        "PYTHON=$PWD/.venv/bin/python toolweave call examples/gateway.yaml wx_get_forecast city=Oslo",
        'toolweave call examples/identity.yaml add_note text=hello -H "Authorization: Bearer alice-token"',
        note="Values are parsed as JSON when they parse (1, true, [1,2], {...}), else taken as strings;\n"
        "an argument the tool declares as a string is always taken as written (text=42 is '42');\n"
        "--json-args '{...}' passes them as one JSON object; an argument given twice is refused.",
    )
)
def call(
    config: ConfigPath,
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="The tool's exposed name.", show_default=False)],
    arguments: Annotated[
        list[str] | None, typer.Argument(metavar="KEY=VALUE...", help="Arguments as key=value.", show_default=False)
    ] = None,
    json_args: Annotated[
        str | None, typer.Option("--json-args", metavar="JSON", help="Arguments as a JSON object.")
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header", "-H", metavar="'NAME: VALUE'", help="An HTTP-style request header, 'Name: value' (repeatable)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    inputs: InputOption = None,
    allow_down: AllowDown = False,
    log_level: LogOption = LogLevel.warning,
) -> None:
    """Call one tool in-process and print its result; exits 1 when the call fails.

    With server.auth, -H "Authorization: Bearer <token>" calls as that token's caller, verified as
    the HTTP edge verifies it (a refused token, or one without the required scopes, exits 1).
    With server.authenticate, headers the hook finds no caller in exit 1, as over HTTP (401).
    """
    setup_logging(log_level)
    try:
        parse_arguments(arguments or [], json_args)  # usage errors first, before anything starts
        headers = parse_headers(header or [])
    except ValueError as error:
        fail(str(error), code=2)
    composed = compose(config, inputs=inputs or ())

    states: list[dict[str, Any]] = []

    async def work(composed: Composed) -> ToolResult | Failure:
        states.extend(upstream_states(composed))
        try:
            auth = await _caller(composed, headers)
        except CallerRefused as refused:
            return Failure(str(refused))
        ctx = Context(server=composed.server, headers=headers, auth=auth)
        entry = composed.server.catalog.entries.get(tool)
        if entry is not None:
            args = parse_arguments(arguments or [], json_args, entry.tool.input_schema)
            try:
                return await composed.server.call_tool(tool, args, ctx=ctx)
            except UnknownTool:
                pass
        visible = [known.name for known in await composed.server.list_tools(ctx)]
        return Failure(_unknown_tool(visible, tool, states))

    result = run_composed(composed, work)
    print_result(result, as_json)
    if result.is_error:
        raise typer.Exit(1)
    report_upstreams(states, allow_down)


async def _caller(composed: Composed, headers: dict[str, str]) -> AuthInfo | None:
    """Who `call` calls as, held to what the HTTP edge holds a caller to (`CallerRefused`
    otherwise): with `server.auth`, the caller of the `Authorization: Bearer` header (without the
    header, no caller); with an `authenticate` hook, the caller it finds in the headers."""
    verifier = (composed.auth or {}).get("auth")
    if verifier is not None:
        token = await bearer_token(headers)
        return await token_caller(verifier, token) if token is not None else None
    if composed.authenticate is None:
        return None
    return await hook_caller(composed.authenticate, headers)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `toolweave` script."""
    app(args=list(argv) if argv is not None else None, prog_name="toolweave")


if __name__ == "__main__":
    main()
