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
import json
import os
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from toolweave.cli_arguments import parse_arguments, parse_headers
from toolweave.cli_callers import CallerRefused, call_caller, listing_caller
from toolweave.cli_compose import (
    AllowDown,
    ConfigPath,
    Failure,
    FromOption,
    InputOption,
    SourcePath,
    WithOption,
    compose,
    parse_inputs,
    report_upstreams,
    run_composed,
    unknown_tool,
    upstream_states,
)
from toolweave.cli_logging import (
    LogFormat,
    LogFormatOption,
    LogLevel,
    LogOption,
    log_as_json,
    log_calls_as_json,
    setup_logging,
)
from toolweave.cli_output import Commands, fail, print_result, stdout
from toolweave.cli_serve import (
    HTTP_OPTIONS,
    GraceOption,
    KeepAliveOption,
    LegacySseOption,
    LimitConcurrencyOption,
    MaxBodySizeOption,
    MaxSessionsOption,
    MetricsOption,
    MetricsPublicOption,
    MetricsScopeOption,
    PortOption,
    SessionIdleTimeoutOption,
    Transport,
    WatchOption,
    WorkersOption,
    announce_serving,
    cannot_listen,
    check_http_only,
    check_serve_flags,
    flags_given,
    install_metrics,
    live_composed,
    ready_line,
    serve_beside,
    serve_workers_of,
)
from toolweave.config import Composed, config_schema
from toolweave.core.context import Context
from toolweave.core.errors import UnknownTool
from toolweave.core.result import ToolResult
from toolweave.explain import explain_server
from toolweave.render import explain_tree, print_listing, print_tree, print_upstreams
from toolweave.report import listing

app = typer.Typer(
    name="toolweave",
    cls=Commands,
    help="Compose MCP tools from a config file: serve them, list them, explain them, call them.",
    epilog="Run 'toolweave COMMAND --help' for examples. Docs: the README's 'Config files and the CLI'.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no `<bool>`-style placeholders on flags
)


def examples(*commands: str, note: str = "") -> str:
    """A command's `--help` epilog: its examples, each on its own line, as written."""
    lines = "\n".join(f"  {command}" for command in commands)
    return f"\b\nExamples:\n{lines}" + (f"\n\n{note}" if note else "")


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
    port: PortOption = 8000,
    max_sessions: MaxSessionsOption = 1000,
    session_idle_timeout: SessionIdleTimeoutOption = 300,
    max_body_size: MaxBodySizeOption = 4 * 1024 * 1024,
    limit_concurrency: LimitConcurrencyOption = 1000,
    timeout_keep_alive: KeepAliveOption = 5,
    legacy_sse: LegacySseOption = False,
    metrics: MetricsOption = False,
    metrics_public: MetricsPublicOption = False,
    metrics_scope: MetricsScopeOption = None,
    grace: GraceOption = 10.0,
    watch: WatchOption = False,
    workers: WorkersOption = 1,
    reuse_port: Annotated[bool, typer.Option("--reuse-port", hidden=True)] = False,
    no_announce: Annotated[bool, typer.Option("--no-announce", hidden=True)] = False,
    no_warnings: Annotated[bool, typer.Option("--no-warnings", hidden=True)] = False,  # (a worker but the first)
    log_level: LogOption = LogLevel.warning,
    log_format: LogFormatOption = LogFormat.text,
) -> None:
    """Serve the composed server over stdio (default) or streamable HTTP (with /healthz and /readyz)."""
    parent = os.getppid() if reuse_port else None  # (a worker of --workers: its parent, before it can end)
    setup_logging(log_level)
    as_json = log_format is LogFormat.json
    if as_json:
        log_as_json()
    http = transport is Transport.http
    check_serve_flags(
        http=http, legacy_sse=legacy_sse, metrics=metrics, metrics_public=metrics_public, workers=workers, watch=watch
    )
    check_http_only(flags_given(ctx, HTTP_OPTIONS), http=http)
    if watch and (client is not None or config is None):
        fail("--watch reloads a toolweave config file: give CONFIG (not --from)", code=2)
    if metrics:
        install_metrics()
    composed = compose(config, client, with_file, inputs or ())
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
        if watch or parent is not None:
            return await serve_beside(serve_composed, composed, watch=watch, worker_of=parent)
        return await serve_composed(composed)

    async def serve_composed(composed: Composed) -> Failure | None:
        server = composed.server
        if transport is Transport.stdio:
            await server.run_async("stdio", grace=grace)
            return None
        busy = None if reuse_port else cannot_listen(host, port)
        if busy is not None:
            return Failure(f"cannot listen on {host}:{port}: {busy}")

        def announce(url: str) -> None:
            announce_serving(server.name, url, legacy_sse, as_json=as_json)

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
            "on_ready": ready_line if no_announce else announce,
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

    from toolweave.mcp.shutdown import exit_past_running_threads, stopped_like_ctrl_c

    with contextlib.suppress(KeyboardInterrupt), stopped_like_ctrl_c():  # a stop while starting unwinds the start
        run_composed(composed, work, warnings=not no_warnings, stdout_is_result=False)

    exit_past_running_threads()


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
        try:
            caller = await listing_caller(composed, scopes, as_token)
        except CallerRefused as refused:
            return Failure(str(refused))
        data = await listing(composed.server, caller)
        data["upstreams"] = upstream_states(composed)
        return data

    data = run_composed(composed, work)
    if as_json:
        stdout.out(json.dumps(data, indent=2, ensure_ascii=False), highlight=False)
    else:
        print_listing(stdout, data)  # with every upstream's state
    report_upstreams(data["upstreams"], allow_down, listed=not as_json)


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
            return Failure(unknown_tool(names, tool or "", states))

    explained = run_composed(composed, work)
    if as_json:
        stdout.out(json.dumps(explained, indent=2, ensure_ascii=False), highlight=False)
    else:
        print_tree(stdout, explain_tree(explained, composed.server.name))
        print_upstreams(stdout, states)
    report_upstreams(states, allow_down, listed=not as_json)


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
            auth = await call_caller(composed, headers)
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
        return Failure(unknown_tool(visible, tool, states))

    result = run_composed(composed, work)
    print_result(result, as_json)
    if result.is_error:
        raise typer.Exit(1)
    report_upstreams(states, allow_down)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `toolweave` script."""
    app(args=list(argv) if argv is not None else None, prog_name="toolweave")


if __name__ == "__main__":
    main()
