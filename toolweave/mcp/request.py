"""What a request carries, read from the SDK's request context into toolweave's `Context`.

`request_context` builds the `Context` a tool, prompt or resource sees: the client and its
capabilities (dumped once per connection; on the 2026 era, where each request declares them anew,
once per distinct value), the request `_meta`, the verified caller (`caller`), the HTTP headers
and peer address, the progress and log sinks of the session (progress is sent only while it
increases, as MCP requires), and `hard_deadline` (a client gets its answer by a `Timeout`'s
deadline).

Example:
    >>> import anyio
    >>> from mcp.types import Implementation
    >>> from toolweave import Server
    >>> from toolweave.testing import connect
    >>> server = Server("who")
    >>> @server.tool
    ... def client_name(ctx: Context) -> str:  # `ctx` is request_context(...) of the `tools/call`
    ...     return ctx.client.name if ctx.client else "unknown"
    >>> async def called() -> str:
    ...     async with connect(server, client_info=Implementation(name="notes-app", version="1.0")) as client:
    ...         return (await client.call_tool("client_name", {})).content[0].text
    >>> anyio.run(called)
    'notes-app'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.shared.exceptions import MCPDeprecationWarning

from toolweave.core.context import AuthInfo, ClientInfo, Context, LogLevel, ServerLike
from toolweave.core.memo import Memo
from toolweave.mcp.headers import RequestHeaders
from toolweave.mcp.http_auth import auth_info
from toolweave.mcp.levels import ConnectionLevels


def connection_of(session: Any) -> Any:
    """The SDK's per-connection object of a session (`None` on a stateless request).

    `mcp` 2.3 keeps it private (`ServerSession._connection`); it holds the connection's `state`
    dict and `exit_stack`, which toolweave uses to remember per-connection values and clean up.
    This is the one place that reads it.
    """
    return getattr(session, "_connection", None)


def request_context(ctx: ServerRequestContext[Any], server: ServerLike, levels: ConnectionLevels) -> Context:
    """The `Context` of one request to `server` (log messages below the connection's level dropped)."""
    request = ctx.request  # HTTP's only: headers and a network peer
    session = ctx.session
    request_id = ctx.request_id
    meta = dict(ctx.meta) if ctx.meta else {}
    connection = connection_of(session)

    async def log(level: LogLevel, data: Any, name: str | None) -> None:
        if connection is not None and not levels.allows(connection, level):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.send_log_message(level, data, logger=name, related_request_id=request_id)

    return Context(
        request_id=request_id if request_id is not None else 0,
        client=_client(ctx),
        client_capabilities=_capabilities(ctx),
        meta=meta,
        auth=caller(ctx),
        headers=_NO_HEADERS if request is None else _headers(request),
        peer=None if request is None else _peer(request),
        server=server,
        hard_deadline=True,  # a client gets its answer by the deadline, whatever the tool does
        progress_sink=RequestProgress(session),
        log_sink=log,
    )


class RequestProgress:
    """A request's progress sink: sent to the client only while it increases, and while the request
    is open (MCP: a value not above the last — a `Retry` attempt starting over, a tool going
    back, NaN — is not sent; nor is anything once the request was answered: progress of a call a
    `Timeout` abandoned, still running, would name a request that has ended).
    """

    __slots__ = ("last", "session")

    def __init__(self, session: Any) -> None:
        self.session = session
        self.last = -math.inf

    async def __call__(self, value: float, total: float | None, message: str | None) -> None:
        if not value > self.last:
            return
        self.last = value
        await self.session.report_progress(value, total, message)

    def close(self) -> None:
        """The request was answered: send nothing more."""
        self.last = math.inf


_NO_HEADERS: Mapping[str, str] = MappingProxyType({})


def _headers(request: Any) -> Mapping[str, str]:
    """The HTTP request's headers by lower-case name; reading one it sent more than once refuses the call."""
    headers = getattr(request, "headers", None)
    return _NO_HEADERS if headers is None else RequestHeaders(headers.items())


def _peer(request: Any) -> str | None:
    """The client's network address (uvicorn applies trusted `X-Forwarded-For`)."""
    client = getattr(request, "scope", {}).get("client")
    return str(client[0]) if client else None


def _per_connection(ctx: ServerRequestContext[Any], key: str, source: Any, build: Callable[[Any], Any]) -> Any:
    """`build(source)`, computed once per connection for as long as `source` is the same object."""
    state = getattr(connection_of(ctx.session), "state", None)
    if state is None:
        return build(source)
    hit = state.get(key)
    if hit is not None and hit[0] is source:
        return hit[1]
    value = build(source)
    state[key] = (source, value)
    return value


def _wire_dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True)  # type: ignore[no-any-return]


_clients: Memo[ClientInfo] = Memo(limit=256)
"""One `ClientInfo` per name and version announced (a 2026-era request announces them anew)."""


def _client(ctx: ServerRequestContext[Any]) -> ClientInfo | None:
    params = ctx.session.client_params
    if params is None or params.client_info is None:
        return None
    info = params.client_info
    return _clients.get((info.name, info.version), ClientInfo, info.name, info.version)


_ENVELOPE_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_dumped_capabilities: Memo[dict[str, Any]] = Memo(limit=256)
"""Wire forms of the capabilities 2026-era requests declared, by the `repr` of what they sent."""


def _capabilities(ctx: ServerRequestContext[Any]) -> dict[str, Any]:
    declared = ctx.session.client_capabilities
    if declared is None:
        return {}
    sent = ctx.meta.get(_ENVELOPE_CAPABILITIES) if ctx.meta else None
    if sent is None:  # handshake era: one declaration per connection
        return _per_connection(ctx, "toolweave.capabilities", declared, _wire_dump)  # type: ignore[no-any-return]
    # 2026 era: every request declares them anew (new objects), but clients repeat one value.
    return _dumped_capabilities.get(repr(sent), _wire_dump, declared)


def caller(ctx: ServerRequestContext[Any]) -> AuthInfo | None:
    """The caller the HTTP edge verified for this request (`toolweave.mcp.http_auth`), if any.

    Read from the request itself: a handshake-era session serves its requests in a task that
    does not see the per-request auth context variable.
    """
    request = ctx.request
    if request is not None:
        user = getattr(request, "scope", {}).get("user")
        if isinstance(user, AuthenticatedUser):
            return auth_info(user.access_token)
    return verified_caller()


def verified_caller() -> AuthInfo | None:
    """The caller the HTTP edge verified for the current HTTP request (the SDK's auth context
    variable, set around the request's whole handling), if any."""
    token = get_access_token()
    return auth_info(token) if token is not None else None
