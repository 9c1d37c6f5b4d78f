"""Serving a toolweave `Server` over stdio and streamable HTTP.

Example:
    server.run()                                     # stdio
    server.run("http", host="127.0.0.1", port=8000)  # http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import anyio

from toolweave.auth.verifier import Verifier
from toolweave.mcp.adapter import adapter_for
from toolweave.mcp.http_auth import Authenticate, metadata_routes, protect
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
) -> Starlette:
    """An ASGI app serving `server` at `path` (both protocol eras).

    Args:
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
    app = adapter_for(server).lowlevel.streamable_http_app(
        streamable_http_path=path,
        stateless_http=stateless,
        json_response=json_response,
        host=host,
        event_store=event_store,
        retry_interval=retry_interval,
        custom_starlette_routes=routes,
    )
    if auth is not None or authenticate is not None:
        protect(
            app,
            path=path,
            verifier=auth,
            authenticate=authenticate,
            allow_anonymous=allow_anonymous,
            resource_url=resource_url,
        )
    return app


async def serve_stdio(server: Server) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes it."""
    from mcp.server.stdio import stdio_server

    lowlevel = adapter_for(server).lowlevel
    async with stdio_server() as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


async def serve_http(
    server: Server,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    log_level: str = "warning",
    **app_options: Any,
) -> None:
    """Serve `server` over streamable HTTP with uvicorn."""
    import uvicorn

    app = http_app(server, path=path, host=host, **app_options)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on")
    logger.info("serving %r at http://%s:%s%s", server.name, host, port, path)
    await uvicorn.Server(config).serve()


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
