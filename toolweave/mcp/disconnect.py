"""A POST whose client left cancelled, when the endpoint answers in plain JSON.

On the 2026 wire closing the request is how a client cancels it, and a stateless handshake-era
request has nobody else to answer to. The SDK watches for the client leaving only while it writes
an event stream: with `json_response=True` a call went on to its end for nobody (a slow tool kept
running, and holding its `ConcurrencyLimit` slot, after its caller gave up). `CancelOnDisconnect`
watches once the body is read and cancels the request's handling when the client goes; a
handshake-era session's call runs in the session and is unaffected (it may be resumed or cancelled
with `notifications/cancelled`).

Example:
    >>> from toolweave import Server
    >>> app = Server("notes").http_app(json_response=True)
    >>> any(layer.cls is CancelOnDisconnect for layer in app.user_middleware)
    True
"""

from __future__ import annotations

import anyio
from starlette.types import Message, Receive, Scope, Send

from toolweave.mcp.endpoint import EndpointLayer


class CancelOnDisconnect(EndpointLayer):
    """ASGI middleware: a POST to `path` is cancelled when its client disconnects after sending
    the body; everything else passed on (see `EndpointLayer`)."""

    method = "POST"

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        body_read = anyio.Event()

        async def reading() -> Message:
            message = await receive()
            if not message.get("more_body", False):
                body_read.set()
            return message

        async def watch(request: anyio.CancelScope) -> None:
            await body_read.wait()
            while (await receive())["type"] != "http.disconnect":
                pass
            request.cancel()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch, tasks.cancel_scope)
            await self.app(scope, reading, send)
            tasks.cancel_scope.cancel()
