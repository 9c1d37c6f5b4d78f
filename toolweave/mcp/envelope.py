"""Every POST to the MCP endpoint checked as one JSON-RPC 2.0 message before the SDK reads it.

The SDK's streamable HTTP transport reads a POST one way for a 2026-era request and another for a
handshake-era one: on a session it answers a malformed message with a pydantic dump that quotes
it and loses its `id`, and takes a request whose `id` is `null` or `true` for a notification (202,
no answer ever). `RefuseMalformed` reads each body once, as the SDK's parser does, and answers one
that is not a valid message itself, as stdio does (`toolweave.mcp.malformed.body_error`): 400 and
its JSON-RPC error, the `id` kept where it can be read, the message never quoted. The SDK never
sees it (a session is neither opened nor touched). Every other request, and a body larger than
the endpoint takes (the SDK answers 413), goes to the SDK as it came.

Example:
    >>> from toolweave import Server
    >>> app = Server("notes").http_app()  # the layer is part of every toolweave HTTP app
    >>> any(layer.cls is RefuseMalformed for layer in app.user_middleware)
    True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolweave.mcp.endpoint import EndpointLayer
from toolweave.mcp.malformed import body_error


class RefuseMalformed(EndpointLayer):
    """ASGI middleware: 400 and its JSON-RPC error for a POST to `path` whose body is not one
    JSON-RPC 2.0 message; everything else passed on, the body replayed as it was received.

    Args:
        app: The ASGI app to wrap.
        path: The MCP endpoint's path (as the router matches it).
        max_body_size: The largest body read; a larger one is passed on unchecked (the SDK
            answers it 413), so no more than this is held in memory.
    """

    method = "POST"

    def __init__(self, app: ASGIApp, path: str = "/mcp", max_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE) -> None:
        super().__init__(app, path)
        self.max_body_size = max_body_size

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _declared_size(scope) > self.max_body_size:
            await self.app(scope, receive, send)
            return
        received, body = await _read(receive, self.max_body_size)
        error = None if body is None else body_error(body)
        if error is None:
            await self.app(scope, _replay(received, receive), send)
            return
        answer = error.model_dump_json(by_alias=True, exclude_unset=True)
        await Response(answer, status_code=400, media_type="application/json")(scope, receive, send)


def _declared_size(scope: Scope) -> int:
    """The request's `Content-Length` (0 when absent or unreadable: the body is counted as read)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else 0
    return 0


async def _read(receive: Receive, limit: int) -> tuple[list[Message], bytes | None]:
    """The messages received and the body they make up; None for a body the client left before
    sending all of, or longer than `limit` (read no further: the SDK answers both)."""
    received: list[Message] = []
    size = 0
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            return received, None
        size += len(message.get("body", b""))
        if size > limit:
            return received, None
        if not message.get("more_body", False):
            break
    if len(received) == 1:
        return received, message.get("body", b"")
    return received, b"".join(part.get("body", b"") for part in received)


def _replay(received: list[Message], receive: Receive) -> Callable[[], Awaitable[Message]]:
    """A `receive` giving `received` again, then what `receive` gives."""
    pending = deque(received)

    async def replay() -> Message:
        return pending.popleft() if pending else await receive()

    return replay
