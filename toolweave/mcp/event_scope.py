"""Which handshake-era session an SSE event belongs to, so a replay never crosses sessions.

The SDK's `EventStore` is one object for every session, and the stream ids it is given are the
session's own (JSON-RPC request ids, `"_GET_stream"`): two sessions both have a stream `"1"`. An
event store that grouped events by stream id alone would replay one session's events to another
session's client resuming its own stream `"1"`.

`EventScopes` (an ASGI middleware `http_app` adds when it serves an event store) gives each
session one `Scope`, named by a digest of the session id and of the caller who holds it (the
SDK's `authorization_context`: client, issuer, subject; none without auth). Every replica names a
session alike, so a store shared in Redis replays its events on any of them, and only to the
same caller. The current scope is set for the request and for what the request starts: the SDK's
per-session message router starts inside the `initialize` request, whose scope is named once its
response carries the new session id. Event stores key streams by `scope_of_request()` and replay
only within the requester's scope.

A session lives in the replica that opened it (the SDK holds it in memory). When a client of a
session this replica does not hold reconnects with `Last-Event-ID` (its replica stopped, or the
balancer sent it elsewhere), `EventScopes` answers from the event store itself: the events it
missed, then the end of the stream; with nothing left to send, `404 Session not found`, as the
SDK answers, and the client opens a new session.

Example:
    >>> scopes = EventScopes(app=None)
    >>> scopes.scope_for("sess-1") is None
    True
    >>> scope_id(b"sess-1", None) == scope_id(b"sess-1", None) != scope_id(b"sess-2", None)
    True
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.streamable_http import EventMessage, EventStore

from toolweave.mcp.http_auth import route_path

SESSION_HEADER = b"mcp-session-id"
LAST_EVENT_HEADER = b"last-event-id"
NOT_FOUND = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'


def scope_id(session: bytes, principal: object) -> str:
    """The scope of `session` held by `principal` (the same on every replica)."""
    return hashlib.blake2b(session + b"\0" + repr(principal).encode(), digest_size=12).hexdigest()


def _principal(scope: dict[str, Any]) -> object:
    user = scope.get("user")
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


class Scope:
    """One handshake-era session, as the event stores see it (named once its id is known)."""

    __slots__ = ("id",)

    def __init__(self, id: str | None = None) -> None:
        self.id = id if id is not None else secrets.token_hex(12)


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
        event_store: The store to replay from for a session another replica holds.
        path: The MCP endpoint's path (where such a replay is asked for).
    """

    def __init__(
        self, app: Any, max_sessions: int = 100_000, event_store: EventStore | None = None, path: str = "/mcp"
    ) -> None:
        self.app = app
        self.max_sessions = max_sessions
        self.event_store = event_store
        self.path = path
        self._sessions: OrderedDict[bytes, Scope] = OrderedDict()

    def scope_for(self, session: str) -> Scope | None:
        """The scope learnt for `session`, if any."""
        return self._sessions.get(session.encode())

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        session = headers.get(SESSION_HEADER)
        if session is not None:
            found = self._sessions.get(session)
            if found is not None:
                self._sessions.move_to_end(session)
            current = found or Scope(scope_id(session, _principal(scope)))
            token = _current.set(current)
            try:
                last = headers.get(LAST_EVENT_HEADER)
                if found is None and last is not None and self._replays(scope):  # a session held elsewhere
                    await self._replay(session, last.decode("latin-1"), send)
                else:
                    await self.app(scope, receive, send)
            finally:
                _current.reset(token)
            return
        fresh = Scope()

        async def learn(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", ()):
                    if name.lower() == SESSION_HEADER:
                        fresh.id = scope_id(bytes(value), _principal(scope))
                        self._remember(bytes(value), fresh)
            await send(message)

        token = _current.set(fresh)
        try:
            await self.app(scope, receive, learn)
        finally:
            _current.reset(token)

    def _replays(self, scope: dict[str, Any]) -> bool:
        return self.event_store is not None and scope["method"] == "GET" and route_path(scope) == self.path

    async def _replay(self, session: bytes, last_event_id: str, send: Any) -> None:
        """The events of the current scope's stream after `last_event_id`, from the store, then
        the end of the stream; `404 Session not found` when there are none."""
        assert self.event_store is not None
        missed: list[EventMessage] = []

        async def keep(event: EventMessage) -> None:
            missed.append(event)

        await self.event_store.replay_events_after(last_event_id, keep)
        if not missed:
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 404, "headers": headers})
            await send({"type": "http.response.body", "body": NOT_FOUND})
            return
        body = "".join(_sse(event) for event in missed).encode()
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), (SESSION_HEADER, session)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _remember(self, session: bytes, scope: Scope) -> None:
        self._sessions[session] = scope
        if len(self._sessions) > self.max_sessions:
            self._sessions.popitem(last=False)


def _sse(event: EventMessage) -> str:
    data = event.message.model_dump_json(by_alias=True, exclude_unset=True)
    return f"event: message\nid: {event.event_id}\ndata: {data}\n\n"
