"""The caller a CLI command acts as, held to what the HTTP edge holds a caller to.

`toolweave list --scopes/--as-token` lists for a caller and `toolweave call -H "Authorization:
Bearer ..."` calls as one. With `server.auth` in the config both answer as the HTTP edge would,
before anything is listed or called: a header the edge reads no bearer token in, a token its
verifier refuses (the edge's 401), one that cannot be checked now (503), and a caller without one
of `server.auth.required_scopes` (403) are refused, with the reason (never the token). With a
`server.authenticate` hook instead, headers the hook finds no caller in are refused (401).

Example:
    >>> import anyio
    >>> class Static:
    ...     required_scopes = ("mcp",)
    ...     async def verify(self, token: str) -> AuthInfo:
    ...         return AuthInfo(subject="ada", scopes=("notes",))
    >>> try:
    ...     anyio.run(token_caller, Static(), "t0k3n")
    ... except CallerRefused as refused:
    ...     print(refused)
    a caller without scope 'mcp' is refused (server.auth.required_scopes; over HTTP: 403 insufficient_scope)
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping, Sequence

from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
from mcp.server.auth.provider import AccessToken, TokenVerifier
from starlette.requests import HTTPConnection

from toolweave.auth.verifier import Verifier, expired
from toolweave.config import Composed
from toolweave.core.context import AuthInfo, Context
from toolweave.core.errors import InvalidToken, VerifierUnavailable
from toolweave.mcp.http_auth import Authenticate

logger = logging.getLogger("toolweave.auth")


class CallerRefused(Exception):
    """A caller the HTTP edge would refuse; the message says why."""


async def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of the `authorization` header, read by the HTTP edge's own reader (the `mcp`
    SDK's `BearerAuthBackend`, which `toolweave.mcp.http_auth.protect` serves with: 'Bearer' in
    any case, one space, and the rest, as sent, is the token); None without the header,
    `CallerRefused` for a header that reader finds no bearer token in.

    Example:
        >>> import anyio
        >>> anyio.run(bearer_token, {"authorization": "bearer t0k3n"}), anyio.run(bearer_token, {})
        ('t0k3n', None)
        >>> anyio.run(bearer_token, {"authorization": "Bearer  t0k3n"})  # (the edge's verifier sees the space)
        ' t0k3n'
    """
    value = headers.get("authorization")
    if value is None:
        return None
    reader = _TokenReader()
    await BearerAuthBackend(reader).authenticate(_request_with(authorization=value))
    if reader.token is None:
        raise CallerRefused("server.auth verifies an 'Authorization: Bearer <token>' header, and this is not one")
    return reader.token


class _TokenReader(TokenVerifier):
    """A `TokenVerifier` that keeps the token the SDK's bearer backend read, and admits no one."""

    token: str | None = None

    async def verify_token(self, token: str) -> AccessToken | None:
        self.token = token
        return None


def _request_with(**headers: str) -> HTTPConnection:
    """An HTTP request with these headers, their values as bytes the way a client would send them."""
    raw = [(name.encode("latin-1"), value.encode()) for name, value in headers.items()]
    return HTTPConnection({"type": "http", "headers": raw})


async def token_caller(verifier: Verifier, token: str) -> AuthInfo:
    """The caller `verifier` finds behind `token`, if it holds the scopes every request needs."""
    try:
        caller = await verifier.verify(token)
    except VerifierUnavailable as unavailable:
        raise CallerRefused(f"the token cannot be checked now: {unavailable}") from None
    except InvalidToken as refused:
        raise CallerRefused(f"the token was refused: {refused}{_whitespace_note(token)}") from None
    except Exception as error:  # (over HTTP: 500, the traceback logged under an incident id)
        logger.error("the token verifier failed", exc_info=error)
        raise CallerRefused(f"the token could not be checked: the verifier failed ({type(error).__name__})") from None
    if expired(caller):
        raise CallerRefused("the token was refused: expired (the HTTP edge allows no leeway past exp)")
    return admitted(verifier, caller)


def _whitespace_note(token: str) -> str:
    """Why a refused token that starts with whitespace (`Bearer  <token>`) may have been refused."""
    if not token[:1].isspace():
        return ""
    return "; the token starts with whitespace (the HTTP edge takes all that follows 'Bearer ' as the token)"


async def hook_caller(authenticate: Authenticate, headers: Mapping[str, str]) -> AuthInfo | None:
    """The caller the `authenticate` hook finds in `headers`. Headers it finds no caller in are
    refused, as the HTTP edge refuses them (401); without headers the call has no caller (the
    operator's own call, as with `server.auth` and no token).

    Example:
        >>> import anyio
        >>> def authenticate(headers):
        ...     return AuthInfo(subject="ada") if headers.get("authorization") == "Bearer ada-token" else None
        >>> anyio.run(hook_caller, authenticate, {"authorization": "Bearer ada-token"}).subject
        'ada'
        >>> print(anyio.run(hook_caller, authenticate, {}))
        None
        >>> try:
        ...     anyio.run(hook_caller, authenticate, {"authorization": "Bearer nope"})
        ... except CallerRefused as refused:
        ...     print(refused)
        the authenticate hook (server.authenticate) finds no caller in the header given (authorization); over HTTP: 401
    """
    try:
        found = authenticate(headers)
        caller = await found if isinstance(found, Awaitable) else found
    except Exception as error:  # (over HTTP: 500, the traceback logged under an incident id)
        logger.error("the authenticate hook failed", exc_info=error)
        failed = f"the authenticate hook failed ({type(error).__name__})"
        raise CallerRefused(f"the caller could not be checked: {failed}") from None
    if isinstance(caller, AuthInfo):
        return caller
    if headers:
        given = f"the header{'s' if len(headers) > 1 else ''} given ({', '.join(headers)})"
        raise CallerRefused(f"the authenticate hook (server.authenticate) finds no caller in {given}; over HTTP: 401")
    return None


def admitted(verifier: Verifier | None, caller: AuthInfo) -> AuthInfo:
    """`caller`, if it holds every one of the verifier's `required_scopes` (none without one).

    Example:
        >>> class Edge:
        ...     required_scopes = ("mcp", "notes")
        >>> admitted(Edge(), AuthInfo(scopes=("notes", "mcp"))).scopes
        ('notes', 'mcp')
    """
    required: Sequence[str] = verifier.required_scopes if verifier is not None else ()
    missing = [scope for scope in required if scope not in caller.scopes]
    if missing:
        named = ", ".join(repr(scope) for scope in missing)
        raise CallerRefused(
            f"a caller without scope{'s' if len(missing) > 1 else ''} {named} is refused "
            "(server.auth.required_scopes; over HTTP: 403 insufficient_scope)"
        )
    return caller


async def listing_caller(composed: Composed, scopes: str | None, token: str | None) -> Context | None:
    """The caller `list --scopes/--as-token` lists for (None: the operator, who sees everything);
    `CallerRefused` for one the HTTP edge would refuse, or a token with no `server.auth` to verify it."""
    verifier = (composed.auth or {}).get("auth")
    if scopes is not None:
        granted = tuple(scope.strip() for scope in scopes.split(",") if scope.strip())
        return Context(auth=admitted(verifier, AuthInfo(subject="toolweave-list", scopes=granted)))
    if token is None:
        return None
    if verifier is None:
        raise CallerRefused("--as-token needs a server.auth section in the config (to verify the token)")
    return Context(auth=await token_caller(verifier, token))


async def call_caller(composed: Composed, headers: dict[str, str]) -> AuthInfo | None:
    """Who `call` calls as, held to what the HTTP edge holds a caller to (`CallerRefused`
    otherwise): with `server.auth`, the caller of the `Authorization: Bearer` header (without the
    header, no caller); with an `authenticate` hook, the caller it finds in the headers."""
    verifier = (composed.auth or {}).get("auth")
    if verifier is not None:
        token = await bearer_token(headers)
        return await token_caller(verifier, token) if token is not None else None
    if composed.authenticate is None:
        return None
    return await hook_caller(composed.authenticate, headers)
