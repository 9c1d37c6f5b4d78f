"""Serving a toolweave `Server` over stdio and streamable HTTP.

Example:
    server.run()                                     # stdio
    server.run("http", host="127.0.0.1", port=8000)  # http://127.0.0.1:8000/mcp
    server.run("http", legacy_sse=True)               # ... and the legacy SSE transport at /sse
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import anyio

from toolweave.auth.verifier import Verifier
from toolweave.mcp.adapter import adapter_for
from toolweave.mcp.http_auth import Authenticate, metadata_routes, protect
from toolweave.mcp.legacy_sse import MESSAGE_PATH, SSE_PATH, legacy_sse_routes
from toolweave.server.server import Server

if TYPE_CHECKING:
    from mcp.server.streamable_http import EventStore
    from starlette.applications import Starlette

logger = logging.getLogger("toolweave.mcp")


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
    authorization_servers: Sequence[str] = (),
    event_store: EventStore | None = None,
    retry_interval: int | None = None,
    max_sessions: int | None = 1000,
    session_idle_timeout: float | None = 300,
    max_request_body_size: int = 4 * 1024 * 1024,
    legacy_sse: bool = False,
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
            (lower-case names), returns the caller's `AuthInfo` or `None`.
        allow_anonymous: Serve requests that `auth`/`authenticate` did not recognise (with no
            `ctx.auth`) instead of answering 401.
        resource_url: This server's public URL (its OAuth resource identifier, the audience of its
            tokens): serves the RFC 9728 metadata and points 401 answers at it.
        authorization_servers: The issuers clients should get tokens from, for that metadata
            (default: the verifier's `issuer`).
        host: The host the app is served on; loopback hosts turn on DNS-rebinding protection.
        event_store: Makes SSE streams resumable for handshake-era clients (priming event, event
            ids, replay after `Last-Event-ID`), e.g. `toolweave.mcp.events.MemoryEventStore()`.
        retry_interval: Milliseconds a client should wait before reconnecting (the SSE `retry`).
    """
    routes = []
    if resource_url is not None:
        if auth is None:
            raise ValueError("resource_url= describes a server that verifies tokens: pass auth= too")
        issuers = list(authorization_servers) or [issuer for issuer in [getattr(auth, "issuer", None)] if issuer]
        if not issuers:
            raise ValueError("resource_url= needs authorization_servers= (the verifier names no issuer)")
        routes = metadata_routes(resource_url, issuers, list(auth.required_scopes))
    adapter = adapter_for(server)
    guarded = [path]
    if legacy_sse:
        routes += legacy_sse_routes(
            adapter, host=host, max_request_body_size=max_request_body_size, max_connections=max_sessions
        )
        guarded += [SSE_PATH, MESSAGE_PATH]
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
    if auth is not None or authenticate is not None:
        protect(
            app,
            paths=guarded,
            verifier=auth,
            authenticate=authenticate,
            allow_anonymous=allow_anonymous,
            resource_url=resource_url,
        )
    return app


async def serve_stdio(server: Server) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes it; every malformed
    message gets its JSON-RPC error (`toolweave.mcp.stdio`)."""
    from toolweave.mcp.stdio import stdio_streams

    lowlevel = adapter_for(server).lowlevel
    async with stdio_streams() as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


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
        **app_options: `http_app` options (auth, limits, event store...).
    """
    import uvicorn

    app = http_app(server, path=path, host=host, **app_options)
    trusted = forwarded_allow_ips if forwarded_allow_ips is not None else os.environ.get("FORWARDED_ALLOW_IPS")
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        limit_concurrency=limit_concurrency,
        timeout_keep_alive=timeout_keep_alive,
        proxy_headers=trusted is not None,
        forwarded_allow_ips=trusted,
    )
    runner = uvicorn.Server(config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(runner.serve)
        while not runner.started and not runner.should_exit:  # uvicorn offers no event  # noqa: ASYNC110
            await anyio.sleep(0.01)
        if runner.started:
            url = _url(host, _bound_port(runner, port), path)
            logger.info("serving %r at %s", server.name, url)
            if on_ready is not None:
                on_ready(url)


def _bound_port(runner: Any, asked: int) -> int:
    """The port uvicorn listens on (the one the system chose when `asked` was 0)."""
    for listening in getattr(runner, "servers", ()):
        for sock in listening.sockets:
            return int(sock.getsockname()[1])
    return asked


def _url(host: str, port: int, path: str) -> str:
    """The URL to show: loopback when listening on every interface."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}{path}"


async def run_async(server: Server, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
    """Serve `server` over `transport` inside a running event loop."""
    if transport == "stdio":
        if options:
            raise TypeError(f"stdio takes no options, got {sorted(options)}")
        await serve_stdio(server)
    elif transport == "http":
        await serve_http(server, **options)
    else:
        raise ValueError(f"transport must be 'stdio' or 'http', not {transport!r}")


def run(server: Server, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
    """Serve `server` until interrupted."""
    anyio.run(lambda: run_async(server, transport, **options))
