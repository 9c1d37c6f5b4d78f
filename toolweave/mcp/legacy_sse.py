"""The legacy HTTP+SSE transport (2024-11-05), served beside streamable HTTP for clients that
speak nothing newer.

`http_app(server, legacy_sse=True)` adds two routes, on the `mcp` SDK's `SseServerTransport`:

- `GET /sse` opens an event stream; its first event names the endpoint to post to
  (`/messages/?session_id=...`), the server's messages follow as `message` events;
- `POST /messages/?session_id=...` takes one client message (202), at most
  `max_request_body_size` bytes (413).

Each stream is one connection to the same composed server as `/mcp` (handshake era, or 2026 if
the client opens with it), served inside the app's lifespan. The SDK checks `Host`/`Origin` on
loopback hosts (DNS-rebinding protection, as on `/mcp`) and lets only the caller who opened a
stream post to it; `auth=`/`authenticate=` guard both routes like `/mcp`. At most `max_connections`
streams are open at once (then 503); a stream ends when its client disconnects, or when the
server shuts down (`close_streams`, once the calls in flight have their answers).

Example:
    >>> from toolweave import Server
    >>> app = Server("notes").http_app(legacy_sse=True)
    >>> sorted(route.path for route in app.routes)
    ['/healthz', '/mcp', '/messages', '/readyz', '/sse']
"""

from __future__ import annotations

import contextlib
import logging
from contextlib import AsyncExitStack

import anyio
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Message, Receive, Scope, Send

from toolweave.mcp.adapter import McpAdapter

logger = logging.getLogger("toolweave.mcp")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
SSE_PATH = "/sse"
MESSAGE_PATH = "/messages/"


def loopback_security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for a loopback `host` (the settings the SDK uses on `/mcp`), else None."""
    if host not in LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class _Response:
    """An event stream's `send`, knowing whether its response has started and ended."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = self.ended = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            self.ended = True
        await self._send(message)

    async def end(self) -> None:
        """End the response body, if it was started and is not ended yet."""
        if self.started and not self.ended:
            with anyio.CancelScope(shield=True), contextlib.suppress(OSError, RuntimeError):
                await self.send({"type": "http.response.body", "body": b"", "more_body": False})


class _Streams:
    """`GET /sse` as an ASGI app: one event stream, served as one connection to the server."""

    def __init__(self, adapter: McpAdapter, transport: SseServerTransport, max_connections: int | None) -> None:
        self.adapter = adapter
        self.transport = transport
        self.max_connections = max_connections
        self.open = 0
        self.closed = False
        self._streams: set[anyio.CancelScope] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.closed:
            await PlainTextResponse("the server is shutting down", status_code=503)(scope, receive, send)
            return
        if self.max_connections is not None and self.open >= self.max_connections:
            logger.warning("legacy SSE connection refused: %d streams are open", self.open)
            await PlainTextResponse("too many SSE connections", status_code=503)(scope, receive, send)
            return
        self.open += 1
        stream = anyio.CancelScope()
        self._streams.add(stream)
        response = _Response(send)
        try:
            with stream:
                async with AsyncExitStack() as stack:
                    try:
                        streams = await stack.enter_async_context(
                            self.transport.connect_sse(scope, receive, response.send)
                        )
                    except ValueError:  # refused by the SDK's Host/Origin check, which has answered already
                        return
                    await self.adapter.serve_connection(*streams)
            if stream.cancelled_caught:  # ended by close(): the client reads the end of the stream
                await response.end()
        finally:
            self._streams.discard(stream)
            self.open -= 1

    def close(self) -> None:
        """End every open stream and refuse new ones (the server is shutting down)."""
        self.closed = True
        for stream in self._streams:
            stream.cancel()


def close_streams(app: Starlette) -> None:
    """End the legacy SSE streams `app` serves (if it serves any): a stream lasts as long as its
    client keeps it, so a shutdown ends them rather than wait for the server's own timeout."""
    for route in app.routes:
        streams = getattr(route, "endpoint", None)
        if isinstance(streams, _Streams):
            streams.close()


def legacy_sse_routes(
    adapter: McpAdapter,
    *,
    sse_path: str = SSE_PATH,
    message_path: str = MESSAGE_PATH,
    host: str = "127.0.0.1",
    max_request_body_size: int = 4 * 1024 * 1024,
    max_connections: int | None = 1000,
) -> list[BaseRoute]:
    """The routes of the legacy transport for the server behind `adapter` (see the module docstring)."""
    transport = SseServerTransport(
        message_path, security_settings=loopback_security(host), max_request_body_size=max_request_body_size
    )
    streams = _Streams(adapter, transport, max_connections)
    return [Route(sse_path, streams, methods=["GET"]), Mount(message_path, app=transport.handle_post_message)]


def sse_url(mcp_url: str, path: str = "/mcp", sse_path: str = SSE_PATH) -> str:
    """The legacy stream's URL beside a streamable HTTP URL.

    Example:
        >>> sse_url("http://127.0.0.1:8000/mcp")
        'http://127.0.0.1:8000/sse'
    """
    return mcp_url.removesuffix(path) + sse_path
