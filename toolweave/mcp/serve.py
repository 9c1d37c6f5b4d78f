"""Serving a toolweave `Server` over stdio and streamable HTTP.

Example:
    >>> server = Server("demo")
    >>> sorted(route.path for route in http_app(server).routes)  # what `server.run("http")` serves
    ['/healthz', '/mcp', '/readyz']
    >>> server.run("carrier-pigeon")
    Traceback (most recent call last):
    ValueError: transport must be 'stdio' or 'http', not 'carrier-pigeon'

    Each of these serves until interrupted, so the examples do not run them:

    >>> server.run()                                     # stdio  # doctest: +SKIP
    >>> server.run("http", host="127.0.0.1", port=8000)  # http://127.0.0.1:8000/mcp  # doctest: +SKIP
    >>> server.run("http", legacy_sse=True)              # ... and legacy SSE at /sse  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import anyio
from starlette.routing import Match

from toolweave.auth.verifier import Verifier, url_problem
from toolweave.mcp.adapter import adapter_for
from toolweave.mcp.envelope import RefuseMalformed
from toolweave.mcp.event_scope import EventScopes
from toolweave.mcp.health import METRICS_PATH, METRICS_SCOPE, health_routes, metrics_route
from toolweave.mcp.http_auth import Authenticate, metadata_routes, protect
from toolweave.mcp.legacy_sse import MESSAGE_PATH, SSE_PATH, close_streams, legacy_sse_routes
from toolweave.mcp.redis_events import RedisEventStore
from toolweave.mcp.shutdown import FLUSH_SECONDS, WORKER_SIGNAL_ECHO, Drain, exit_past_running_threads, on_signals
from toolweave.mcp.upstream_callers import warn_without_callers
from toolweave.server.server import Server
from toolweave.store import RedisStore
from toolweave.telemetry.logs import hide_url_secrets_in_library_logs

if TYPE_CHECKING:
    from mcp.server.streamable_http import EventStore
    from starlette.applications import Starlette

logger = logging.getLogger("toolweave.mcp")
GRACE = 10.0
"""Seconds the requests in flight and running tasks get to finish after SIGTERM/SIGINT/SIGHUP, by default."""


def http_app(
    server: Server,
    *,
    path: str = "/mcp",
    stateless: bool = False,
    json_response: bool = False,
    host: str = "127.0.0.1",
    auth: Verifier | None = None,
    authenticate: Authenticate | None = None,
    allow_anonymous: bool = False,
    resource_url: str | None = None,
    authorization_servers: Sequence[str] | str = (),
    event_store: EventStore | None = None,
    retry_interval: int | None = None,
    max_sessions: int | None = 1000,
    session_idle_timeout: float | None = 300,
    max_request_body_size: int = 4 * 1024 * 1024,
    legacy_sse: bool = False,
    health: bool = True,
    metrics: bool = False,
    metrics_scopes: Sequence[str] = (METRICS_SCOPE,),
    metrics_public: bool = False,
    shutting_down: Callable[[], bool] | None = None,
) -> Starlette:
    """An ASGI app serving `server` at `path` (both protocol eras).

    Args:
        legacy_sse: Also serve the legacy HTTP+SSE transport (`GET /sse`, `POST /messages/`), for
            clients that speak nothing newer (`toolweave.mcp.legacy_sse`); at most
            `max_sessions` streams at once, bodies bounded like `path`'s.
        max_sessions: The most handshake-era sessions held at once; past it new ones get 503.
        session_idle_timeout: Seconds after which an idle handshake-era session is closed.
        max_request_body_size: The largest request body accepted (bytes); larger ones get 413.
        auth: Verifies each request's bearer token (`toolweave.auth.JWTVerifier`,
            `IntrospectionVerifier`, or any `Verifier`); the verified caller becomes `ctx.auth`.
            A request without a valid token gets 401, one without a required scope 403.
        authenticate: A hand-written alternative to `auth`: called with each request's headers
            (lower-case names), returns the caller's `AuthInfo` or `None`. A caller it gives a
            `token` must keep its scopes and claims for that token: `Authorize` decisions are
            remembered per token (a key whose scopes change needs a new token, or no `token`).
        allow_anonymous: Serve requests that `auth`/`authenticate` did not recognise (with no
            `ctx.auth`) instead of answering 401.
        resource_url: This server's public URL (its OAuth resource identifier, the audience of its
            tokens): serves the RFC 9728 metadata and points 401 answers at it. Default: the
            verifier's `audience`, when that is one http(s) URL.
        authorization_servers: The issuers clients should get tokens from, for that metadata
            (default: the verifier's `issuer`).
        host: The host the app is served on; loopback hosts turn on DNS-rebinding protection.
        event_store: Makes SSE streams resumable for handshake-era clients (priming event, event
            ids, replay after `Last-Event-ID`), e.g. `toolweave.mcp.events.MemoryEventStore()`.
            A server with a shared store (`Server(store="redis://...")`) uses the store's by default.
        retry_interval: Milliseconds a client should wait before reconnecting (the SSE `retry`).
        health: Serve `GET /healthz` and `GET /readyz` (unauthenticated; `toolweave.mcp.health`).
        shutting_down: Whether the server is shutting down, for `/readyz` (503 then): `serve_http`
            passes its drain's.
        metrics: Serve `GET /metrics` in the Prometheus text format (needs the `prometheus`
            extra; installs a meter provider unless the application has one). With `auth` or
            `authenticate`, only to a caller they recognise that holds `metrics_scopes` (never
            anonymously: the metrics name every tool, those hidden from callers included).
        metrics_scopes: The scopes a caller needs for `/metrics`, besides the verifier's
            required ones (default `toolweave:metrics`, a scope an operator grants the scraper;
            `()`: any verified caller).
        metrics_public: Serve `/metrics` to anyone even with `auth` (a scrape path the network
            already protects).
    """
    routes: list[Any] = []
    if event_store is None and isinstance(server.store, RedisStore):
        event_store = RedisEventStore(server.store)
    if resource_url is not None and auth is None:
        raise ValueError("resource_url= describes a server that verifies tokens: pass auth= too")
    if auth is not None:
        named = [authorization_servers] if isinstance(authorization_servers, str) else list(authorization_servers)
        resource_url, routes = _resource_metadata(auth, resource_url, named)
    if health:
        routes += health_routes(server, shutting_down)
    if metrics:
        routes.append(metrics_route())
    adapter = adapter_for(server)
    guarded = [path]
    if legacy_sse:
        routes += legacy_sse_routes(
            adapter, host=host, max_request_body_size=max_request_body_size, max_connections=max_sessions
        )
        guarded += [SSE_PATH, MESSAGE_PATH]
    _refuse_taken_path(path, routes)
    app = adapter.lowlevel.streamable_http_app(
        streamable_http_path=path,
        stateless_http=stateless,
        json_response=json_response,
        host=host,
        event_store=event_store,
        retry_interval=retry_interval,
        custom_starlette_routes=routes,
        max_sessions=max_sessions,
        session_idle_timeout=session_idle_timeout,
        max_request_body_size=max_request_body_size,
    )
    if legacy_sse:  # a legacy client's malformed message is answered as on /mcp (the SDK drops some unanswered)
        app.add_middleware(RefuseMalformed, path=MESSAGE_PATH, max_body_size=max_request_body_size)
    if event_store is not None:  # replays stay inside the session that stored the events
        app.add_middleware(EventScopes, max_sessions=10 * (max_sessions or 1000), event_store=event_store, path=path)
    if auth is None and authenticate is None:
        warn_without_callers(server, "over HTTP without auth= or authenticate=")
    else:
        protect(
            app,
            paths=guarded,
            private={METRICS_PATH: list(metrics_scopes)} if metrics and not metrics_public else {},
            verifier=auth,
            authenticate=authenticate,
            allow_anonymous=allow_anonymous,
            resource_url=resource_url,
        )
    return app


def _refuse_taken_path(path: str, routes: list[Any]) -> None:
    """Refuse an MCP `path` that one of the app's other `routes` answers (legacy SSE, health,
    metrics, the RFC 9728 metadata): the MCP route is matched first and would take that route's
    requests without a word.

    Example:
        >>> from toolweave.mcp.health import health_routes
        >>> _refuse_taken_path("/healthz", health_routes(Server("demo")))
        Traceback (most recent call last):
        ValueError: path='/healthz' is also where the app serves /healthz: choose another path=
    """
    request = {"type": "http", "method": "GET", "path": path, "root_path": ""}
    for route in routes:
        if route.matches(request)[0] is not Match.NONE:
            raise ValueError(f"path={path!r} is also where the app serves {route.path}: choose another path=")


def _resource_metadata(auth: Verifier, resource_url: str | None, named: list[str]) -> tuple[str | None, list[Any]]:
    """This server's resource URL (given, or the verifier's one http(s) audience) and its RFC 9728
    metadata routes; without either, or without an issuer to name, a warning and no metadata
    (401 answers then cannot tell a client where to get a token)."""
    given = resource_url is not None
    if resource_url is None:
        audience = getattr(auth, "audience", None) or []
        if len(audience) == 1 and url_problem(audience[0]) is None:
            resource_url = audience[0]
    issuers = named or _issuer_as_server(auth, serving=resource_url is not None)
    if resource_url is not None and issuers:
        return resource_url, metadata_routes(resource_url, issuers, list(auth.required_scopes))
    if given:
        raise ValueError("resource_url= needs authorization_servers= (the verifier names no issuer)")
    logger.warning(
        "%r: no RFC 9728 metadata is served and 401 answers do not say where to get a token; pass %s",
        auth,
        "authorization_servers=" if resource_url is not None else "resource_url= (this server's public URL)",
    )
    return None, []


def _issuer_as_server(auth: Verifier, *, serving: bool) -> list[str]:
    """The verifier's issuer as the authorization server of the metadata (`serving` it), when it
    has one; an issuer that is no URL (a JWT's `iss` may be any string) cannot be.

    Example:
        >>> from toolweave.auth import JWTVerifier
        >>> verifier = JWTVerifier(jwks_uri="https://idp.example.com/jwks.json", issuer="my-idp")
        >>> _issuer_as_server(verifier, serving=True)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: the verifier's issuer 'my-idp' is not an http(s) URL, ...: pass authorization_servers= (...)
    """
    issuer = getattr(auth, "issuer", None)
    if not issuer:
        return []
    if serving and url_problem(issuer) is not None:
        raise ValueError(
            f"the verifier's issuer {issuer!r} is not an http(s) URL, so it cannot name the authorization server "
            "in the RFC 9728 metadata: pass authorization_servers= (the URLs clients get tokens from)"
        )
    return [issuer]


async def serve_stdio(server: Server, *, grace: float | None = GRACE) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes it; every malformed
    message gets its JSON-RPC error (`toolweave.mcp.stdio`).

    Args:
        grace: On SIGTERM/SIGINT/SIGHUP, give the requests in flight and the running tasks this many
            seconds, answer the rest with an error (tasks: `failed`), stop reading and return
            (`toolweave.mcp.shutdown`); `None` leaves signals alone.
    """
    from toolweave.mcp.stdio import stdio_streams

    lowlevel = adapter_for(server).lowlevel
    warn_without_callers(server, "over stdio")
    with Drain(adapter_for(server).tasks).installed(lowlevel) as drain:
        drain.track_answers()  # the transport stops right after the drain: wait for the answers
        async with stdio_streams(written=drain.written) as (read, write), anyio.create_task_group() as tasks:
            if grace is not None:
                tasks.start_soon(on_signals, drain, grace, read.stop_reading)
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


async def serve_http(
    server: Server,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    log_level: str = "warning",
    limit_concurrency: int | None = 1000,
    timeout_keep_alive: int = 5,
    forwarded_allow_ips: str | None = None,
    on_ready: Callable[[str], None] | None = None,
    reuse_port: bool = False,
    grace: float | None = GRACE,
    **app_options: Any,
) -> None:
    """Serve `server` over streamable HTTP with uvicorn.

    Args:
        limit_concurrency: The most connections and requests in progress at once; past it uvicorn
            answers 503 (a flood of slow clients cannot hold every slot forever).
        timeout_keep_alive: Seconds an idle keep-alive connection is kept open.
        forwarded_allow_ips: Proxies whose `X-Forwarded-For` sets the peer address (`ctx.peer`,
            the caller of `RateLimit`/`Cache` without authentication), e.g. `"127.0.0.1"` behind
            a local reverse proxy. Unset (and no `FORWARDED_ALLOW_IPS` in the environment), the
            header is trusted from no one: the peer is the connection's own address.
        on_ready: Called with the URL once the socket listens (with the real port when `port=0`).
        reuse_port: Listen with `SO_REUSEPORT`, sharing the port with other processes doing the
            same (the kernel spreads connections between them): how `--workers N` runs N processes.
        grace: On SIGTERM/SIGINT/SIGHUP, stop accepting connections and requests, give the requests in
            flight and the running tasks this many seconds, answer the rest with an error (tasks:
            `failed`), then stop (`toolweave.mcp.shutdown`); `None` leaves signals to uvicorn.
        **app_options: `http_app` options (auth, limits, event store...).
    """
    import uvicorn

    drain = Drain(adapter_for(server).tasks)
    app = http_app(server, path=path, host=host, shutting_down=lambda: drain.closing, **app_options)
    trusted = forwarded_allow_ips if forwarded_allow_ips is not None else os.environ.get("FORWARDED_ALLOW_IPS")
    hide_url_secrets_in_library_logs()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        # logging configured (the CLI's text or JSON lines): uvicorn's records join it, same format
        log_config=None if logging.getLogger().handlers else uvicorn.config.LOGGING_CONFIG,
        lifespan="on",
        ws="none",  # MCP speaks no WebSocket: uvicorn need not import a websockets library
        limit_concurrency=limit_concurrency,
        timeout_keep_alive=timeout_keep_alive,
        proxy_headers=trusted is not None,
        forwarded_allow_ips=trusted,
        timeout_graceful_shutdown=None if grace is None else int(FLUSH_SECONDS),
    )
    runner = _runner(uvicorn, config, handle_signals=grace is None)
    sockets = [reuse_port_socket(host, port)] if reuse_port else None

    def stop() -> None:
        runner.should_exit = True
        close_streams(app)

    with drain.installed(adapter_for(server).lowlevel):
        async with anyio.create_task_group() as tasks:
            if grace is not None:
                # a worker of `serve --workers` (sharing its port) hears each stop twice, see on_signals
                signals = partial(on_signals, echo_within=WORKER_SIGNAL_ECHO if reuse_port else 0.0)
                tasks.start_soon(signals, drain, grace, stop, partial(_stop_listening, runner))
            await _serve_uvicorn(runner, sockets, server, host, port, path, on_ready)
            tasks.cancel_scope.cancel()


def _runner(uvicorn: Any, config: Any, *, handle_signals: bool) -> Any:
    """A uvicorn server; without its own signal handlers unless `handle_signals` (toolweave's
    `on_signals` drains first, then stops it, and the process exits 0)."""
    if handle_signals:
        return uvicorn.Server(config)

    class Quiet(uvicorn.Server):  # type: ignore[misc,name-defined]
        def capture_signals(self) -> contextlib.AbstractContextManager[None]:
            return contextlib.nullcontext()

    return Quiet(config)


def _stop_listening(runner: Any) -> None:
    """Close uvicorn's listening sockets: no new connections; open ones carry on."""
    for listening in getattr(runner, "servers", ()):
        listening.close()


async def _serve_uvicorn(
    runner: Any, sockets: Any, server: Server, host: str, port: int, path: str, on_ready: Callable[[str], None] | None
) -> None:
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(partial(runner.serve, sockets=sockets))
        while not runner.started and not runner.should_exit:  # uvicorn offers no event  # noqa: ASYNC110
            await anyio.sleep(0.01)
        if runner.started:
            url = served_url(host, _bound_port(runner, port), path)
            logger.info("serving %r at %s", server.name, url)
            if on_ready is not None:
                on_ready(url)


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host:port` with `SO_REUSEPORT` (not yet listening)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except BaseException:
        sock.close()
        raise
    return sock


def _bound_port(runner: Any, asked: int) -> int:
    """The port uvicorn listens on (the one the system chose when `asked` was 0)."""
    for listening in getattr(runner, "servers", ()):
        for sock in listening.sockets:
            return int(sock.getsockname()[1])
    return asked


def served_url(host: str, port: int, path: str) -> str:
    """The URL to show: loopback when listening on every interface."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}{path}"


async def run_async(server: Server, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
    """Serve `server` over `transport` inside a running event loop (`grace=` for either)."""
    if transport == "stdio":
        grace = options.pop("grace", GRACE)
        if options:
            raise TypeError(f"stdio takes only grace=, got {sorted(options)}")
        await serve_stdio(server, grace=grace)
    elif transport == "http":
        await serve_http(server, **options)
    else:
        raise ValueError(f"transport must be 'stdio' or 'http', not {transport!r}")


def run(server: Server, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
    """Serve `server` until interrupted (then end the process if a sync tool still runs past the
    grace period, see `exit_past_running_threads`)."""
    anyio.run(lambda: run_async(server, transport, **options))
    exit_past_running_threads()
