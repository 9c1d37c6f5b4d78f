"""Serving a toolweave `Server` over stdio and streamable HTTP.

Example:
    server.run()                                     # stdio
    server.run("http", host="127.0.0.1", port=8000)  # http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal

import anyio

from toolweave.mcp.adapter import Authenticate, adapter_for
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
    authenticate: Authenticate | None = None,
    event_store: EventStore | None = None,
    retry_interval: int | None = None,
) -> Starlette:
    """An ASGI app serving `server` at `path` (both protocol eras).

    Args:
        authenticate: Called with each request's headers (lower-case names); returns the
            caller's `AuthInfo` (or None), which becomes `ctx.auth`.
        host: The host the app is served on; loopback hosts turn on DNS-rebinding protection.
        event_store: Makes SSE streams resumable for handshake-era clients (priming event, event
            ids, replay after `Last-Event-ID`), e.g. `toolweave.mcp.events.MemoryEventStore()`.
        retry_interval: Milliseconds a client should wait before reconnecting (the SSE `retry`).
    """
    adapter = adapter_for(server)
    if authenticate is not None:
        adapter.authenticate = authenticate
    return adapter.lowlevel.streamable_http_app(
        streamable_http_path=path,
        stateless_http=stateless,
        json_response=json_response,
        host=host,
        event_store=event_store,
        retry_interval=retry_interval,
    )


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
