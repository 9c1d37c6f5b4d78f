"""`EndpointLayer`: ASGI middleware for one method's requests to the MCP endpoint.

The layers toolweave puts in front of the SDK's streamable HTTP transport (`RefuseMalformed`,
`RefuseGetStream`, `CancelOnDisconnect`) each act on one method sent to one path and pass every
other request on untouched; this base holds that test, so a layer writes only what it does.

Example:
    >>> from starlette.responses import PlainTextResponse
    >>> class Teapot(EndpointLayer):
    ...     method = "PUT"
    ...
    ...     async def handle(self, scope, receive, send):
    ...         await PlainTextResponse("short and stout", status_code=418)(scope, receive, send)
    >>> (layer := Teapot(app=None, path="/tea")).method, layer.path
    ('PUT', '/tea')
"""

from __future__ import annotations

from typing import ClassVar

from starlette.types import ASGIApp, Receive, Scope, Send

from toolweave.mcp.http_auth import route_path


class EndpointLayer:
    """ASGI middleware: `handle` a `method` request to `path`; everything else passed on.

    Args:
        app: The ASGI app to wrap.
        path: The MCP endpoint's path (as the router matches it).
    """

    method: ClassVar[str]
    """The HTTP method this layer handles."""

    def __init__(self, app: ASGIApp, path: str = "/mcp") -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != self.method or route_path(scope) != self.path:
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer (or pass on) a request this layer acts on."""
        raise NotImplementedError
