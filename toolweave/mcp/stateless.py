"""`GET` on a stateless server's MCP endpoint answered 405, as the 2026 path answers it.

A `GET` opens the stream a server sends its own requests and notifications on. A stateless server
(`http_app(stateless=True)`) gives every POST a transport of its own and keeps none, so nothing
could ever be written to such a stream: the SDK still opened one for a handshake-era `GET` and held
it forever, each one a connection slot taken (`limit_concurrency`). The spec lets a server that
offers no stream answer `GET` with 405; the SDK does so for a 2026-era `GET` and for a stateless
`DELETE`.

Example:
    >>> from toolweave import Server
    >>> app = Server("notes").http_app(stateless=True)
    >>> any(layer.cls is RefuseGetStream for layer in app.user_middleware)
    True
"""

from __future__ import annotations

from mcp.types import INVALID_REQUEST, ErrorData, JSONRPCError
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from toolweave.mcp.endpoint import EndpointLayer

_REFUSAL = JSONRPCError(
    jsonrpc="2.0",
    id=None,
    error=ErrorData(code=INVALID_REQUEST, message="Method Not Allowed: a stateless server opens no GET stream"),
).model_dump_json(by_alias=True, exclude_unset=True)


class RefuseGetStream(EndpointLayer):
    """ASGI middleware: 405 (`Allow: POST`) and a JSON-RPC error for a `GET` to `path`; everything
    else passed on (see `EndpointLayer`)."""

    method = "GET"

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = Response(_REFUSAL, status_code=405, media_type="application/json", headers={"Allow": "POST"})
        await refusal(scope, receive, send)
