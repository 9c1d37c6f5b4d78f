"""Which handshake-era session an SSE event belongs to, so a replay never crosses sessions.

The SDK's `EventStore` is one object for every session, and the stream ids it is given are the
session's own (JSON-RPC request ids, `"_GET_stream"`): two sessions both have a stream `"1"`. An
event store that grouped events by stream id alone would replay one session's events to another
session's client resuming its own stream `"1"`.

`EventScopes` (an ASGI middleware `http_app` adds when it serves an event store) gives each
session one `Scope`: a request without `Mcp-Session-Id` (an `initialize`) gets a new one, learnt
for the session id its response carries; a request with a session id gets that session's. It is
the current scope for the request and for what the request starts: the SDK's per-session message
router starts inside the `initialize` request, so the events it stores get the session's scope.
Event stores key streams by `scope_of_request()` and replay only within the requester's scope.

Example:
    >>> scopes = EventScopes(app=None)
    >>> scopes.scope_for("sess-1") is None
    True
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any

SESSION_HEADER = b"mcp-session-id"


class Scope:
    """One handshake-era session, as the event stores see it."""

    __slots__ = ("id",)

    def __init__(self) -> None:
        self.id = secrets.token_hex(8)


_current: ContextVar[Scope | None] = ContextVar("toolweave_event_scope", default=None)
"""The scope of the HTTP request being served (set at the edge by `EventScopes`)."""


def scope_of_request() -> str:
    """The id of the current request's session scope ("" outside a served request)."""
    scope = _current.get()
    return scope.id if scope is not None else ""


class EventScopes:
    """ASGI middleware: the current request's `Scope`, by its `Mcp-Session-Id`.

    Args:
        app: The ASGI app to wrap.
        max_sessions: Sessions remembered (the least recently seen forgotten first).
    """

    def __init__(self, app: Any, max_sessions: int = 100_000) -> None:
        self.app = app
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[bytes, Scope] = OrderedDict()

    def scope_for(self, session: str) -> Scope | None:
        """The scope learnt for `session`, if any."""
        return self._sessions.get(session.encode())

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session = next((value for name, value in scope["headers"] if name == SESSION_HEADER), None)
        if session is not None:
            found = self._sessions.get(session)
            if found is not None:
                self._sessions.move_to_end(session)
            token = _current.set(found or Scope())  # an unknown session: a scope of its own
            try:
                await self.app(scope, receive, send)
            finally:
                _current.reset(token)
            return
        fresh = Scope()

        async def learn(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", ()):
                    if name.lower() == SESSION_HEADER:
                        self._remember(bytes(value), fresh)
            await send(message)

        token = _current.set(fresh)
        try:
            await self.app(scope, receive, learn)
        finally:
            _current.reset(token)

    def _remember(self, session: bytes, scope: Scope) -> None:
        self._sessions[session] = scope
        if len(self._sessions) > self.max_sessions:
            self._sessions.popitem(last=False)
