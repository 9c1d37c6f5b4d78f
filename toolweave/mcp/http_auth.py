"""Verified callers at the HTTP edge, on the `mcp` SDK's own resource-server machinery.

`http_app(auth=verifier)` hands the SDK a `TokenVerifier` (this module's `SdkVerifier`, around
any `toolweave.auth.Verifier`) and its `AuthSettings`; the SDK's `BearerAuthBackend` and
`RequireAuthMiddleware` then answer:

- no token, a malformed `Authorization` header, or a token the verifier refuses → **401** with
  `WWW-Authenticate: Bearer error="invalid_token", ..., resource_metadata="<url>"`;
- a valid token without a required scope → **403** `insufficient_scope`;
- a token that could not be checked (the verifier's identity provider is down) → **503**
  `temporarily_unavailable`, and a verifier or hook that crashed → **500** naming the incident
  (`Unverifiable`: a client told 401 would throw its token away);
- `/.well-known/oauth-protected-resource[/path]` (RFC 9728) for the `resource_url` (given, or the
  verifier's one http(s) `audience`).

What the SDK lacks, added here: a bearer token in the query string (`?access_token=`) is refused
with 401 before anything else (RFC 6750 forbids servers from accepting it where headers work, and
URLs end up in logs), and so is an `Authorization` header sent twice; the reason a token was refused
goes to the operator's log (logger `toolweave.auth`, never the token), the client learns only
`invalid_token`; and a hand-written `authenticate(headers)` hook takes the same path
(`HookBackend`): returning `None` is a 401 unless the app allows anonymous callers.

Example:
    >>> from toolweave import Server
    >>> from toolweave.auth import JWTVerifier
    >>> verifier = JWTVerifier(jwks_uri="https://auth.example.com/jwks.json", issuer="https://auth.example.com/",
    ...                        audience="https://mcp.example.com/mcp")
    >>> app = Server("notes").http_app(auth=verifier, resource_url="https://mcp.example.com/mcp")
    >>> sorted(route.path for route in app.routes)
    ['/.well-known/oauth-protected-resource/mcp', '/healthz', '/mcp', '/readyz']
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.authentication import AuthCredentials, AuthenticationBackend
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from toolweave.auth.verifier import Verifier, checked_url, expired
from toolweave.core.context import AuthInfo
from toolweave.core.errors import InvalidToken, Rejected, VerifierUnavailable
from toolweave.core.masking import incident_id, is_cancellation
from toolweave.mcp.headers import RequestHeaders

logger = logging.getLogger("toolweave.auth")
Authenticate = Callable[[Mapping[str, str]], "Awaitable[AuthInfo | None] | AuthInfo | None"]
QUERY_TOKEN_NAMES = frozenset({"access_token", "token", "bearer", "id_token"})
"""Query parameters that carry a bearer token (refused: tokens belong in the `Authorization` header)."""
BOTH_WAYS = "give auth= (a token verifier) or authenticate= (a hook), not both"
"""Why an app is not served with both: which of them would decide who the caller is?"""
UNVERIFIED = "toolweave.unverified"
"""Where the auth backend leaves, on the request's scope, why its caller could not be checked."""


def access_token(caller: AuthInfo) -> AccessToken:
    """The SDK's form of a verified caller."""
    return AccessToken(
        token=caller.token or "",
        client_id=caller.client_id or "",
        scopes=list(caller.scopes),
        expires_at=caller.expires_at,
        subject=caller.subject,
        claims=dict(caller.claims),
    )


def auth_info(token: AccessToken) -> AuthInfo:
    """toolweave's form of the caller the SDK verified (`ctx.auth`)."""
    return AuthInfo(
        subject=token.subject or None,  # never the client id: a client named like a user is not that user
        scopes=tuple(token.scopes),
        claims=dict(token.claims or {}),
        token=token.token or None,
        client_id=token.client_id or None,
        expires_at=token.expires_at,
    )


class Unverifiable(Exception):
    """A caller who could not be checked (not one who was refused), and the answer the guard gives
    on a protected route: 503 when the verifier's identity provider could not be had (try again),
    500 with an incident id when the verifier or the hook failed. Open routes (health checks, the
    metadata) serve the request as unauthenticated."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status, self.error, self.description = status, error, description

    def answer(self) -> JSONResponse:
        """What the guard of a protected route answers (503s say when to try again)."""
        retry = {"retry-after": "1"} if self.status == 503 else None
        return oauth_error(self.status, self.error, self.description, retry)

    @classmethod
    def unavailable(cls) -> Unverifiable:
        return cls(503, "temporarily_unavailable", "the token cannot be checked right now; try again shortly")

    @classmethod
    def failed(cls, what: str, error: BaseException) -> Unverifiable:
        """`what` crashed: logged with its traceback under an incident id the answer names."""
        incident = incident_id(error)
        logger.error(
            "%s failed (incident %s); the request has no verified caller (a protected route answers 500)",
            what,
            incident,
            exc_info=error,
        )
        return cls(500, "server_error", f"the caller could not be checked (incident {incident})")


class NotedUnverifiable(AuthenticationBackend):
    """An auth backend whose `Unverifiable` is noted on the request (`UNVERIFIED`) for the guard
    to answer; the request is otherwise unauthenticated. Only requests to `paths` (and below them,
    as the guard matches) are authenticated: the probes and the metadata stay anonymous and cheap,
    a hook or verifier never asked for them."""

    def __init__(self, backend: AuthenticationBackend, paths: Sequence[str]) -> None:
        self.backend = backend
        self.paths = _normalized(paths)

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, Any] | None:
        if not _under(route_path(conn.scope).rstrip("/") or "/", self.paths):
            return None
        try:
            return await self.backend.authenticate(conn)
        except Unverifiable as unverifiable:
            conn.scope[UNVERIFIED] = unverifiable
            return None


class SdkVerifier(TokenVerifier):
    """A toolweave `Verifier` as the SDK's `TokenVerifier`; refusals are logged, never sent. A token
    that could not be checked (`VerifierUnavailable`, or the verifier crashed) is `Unverifiable`.

    Attributes:
        refused: How many tokens were refused (for operators and tests).
    """

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self.refused = 0

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            caller = await self.verifier.verify(token)
        except VerifierUnavailable as error:
            logger.warning("bearer token not checked: %s", error)
            raise Unverifiable.unavailable() from None
        except InvalidToken as error:
            self.refused += 1
            logger.info("bearer token refused: %s", error)
            return None
        except Exception as error:  # a bug in the verifier lets nobody in, like a crashing hook
            raise Unverifiable.failed("the token verifier", error) from None
        if expired(caller):  # (accepted within the verifier's leeway: say why the SDK refuses it)
            self.refused += 1
            logger.info("bearer token refused: expired (the HTTP edge allows no leeway past exp)")
            return None
        return access_token(caller)


class HookBackend(AuthenticationBackend):
    """A hand-written `authenticate(headers) -> AuthInfo | None` hook as a Starlette backend.

    The hook reads the headers as `ctx.headers` does (`RequestHeaders`): a header the request
    sent more than once is never read — the hook reading one refuses the request (401, logged on
    `toolweave.security`). A hook that raises (anything but the request's own cancellation:
    `SystemExit` included) lets nobody in: the error is logged with its traceback under an
    incident id, and a protected route answers 500 naming it (`Unverifiable`).
    """

    def __init__(self, hook: Authenticate) -> None:
        self.hook = hook

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, AuthenticatedUser] | None:
        headers = RequestHeaders(conn.headers.items())
        try:
            found = self.hook(headers)
            caller = await found if isinstance(found, Awaitable) else found
        except Rejected:  # it read a repeated header (logged by RequestHeaders)
            return None
        except BaseException as error:  # SystemExit, KeyboardInterrupt... from the hook: refused too
            if is_cancellation(error):
                raise
            raise Unverifiable.failed("the authenticate hook", error) from None
        if caller is None:
            return None
        return AuthCredentials(list(caller.scopes)), AuthenticatedUser(access_token(caller))


class RequireAuthOn:
    """ASGI middleware: requests to `paths` (and below them) need an authenticated caller with
    `required_scopes` (the SDK's 401/403 answers).

    Other routes (the RFC 9728 metadata, health checks) stay open. With `tokens_only`, only a
    request that presents an `Authorization` header is held to it (anonymous callers allowed: a
    token that is expired, forged or lacks a required scope still gets its 401/403, so the
    client learns to fetch a new one instead of being served as nobody).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        paths: Sequence[str],
        required_scopes: list[str],
        resource_metadata_url: Any,
        tokens_only: bool = False,
    ) -> None:
        self.app = app
        self.paths = _normalized(paths)
        self.guarded = RequireAuthMiddleware(app, required_scopes, resource_metadata_url)
        self.tokens_only = tokens_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self._held(scope):
            unverifiable = scope.get(UNVERIFIED)
            if unverifiable is not None:
                await unverifiable.answer()(scope, receive, send)
            else:
                await self.guarded(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _held(self, scope: Scope) -> bool:
        if not _under(route_path(scope).rstrip("/") or "/", self.paths):
            return False
        return not self.tokens_only or any(name.lower() == b"authorization" for name, _ in scope.get("headers", ()))


def _normalized(paths: Sequence[str]) -> tuple[str, ...]:
    return tuple(path.rstrip("/") or "/" for path in paths)


def _under(path: str, guarded_paths: tuple[str, ...]) -> bool:
    # An endpoint at the root guards the root alone: every path is "below" it, the metadata and
    # the probes included, and those must stay open.
    return any(path == guarded or (guarded != "/" and path.startswith(guarded + "/")) for guarded in guarded_paths)


def route_path(scope: Scope) -> str:
    """The path the app's router matches: the request's path less the `root_path` the app is
    mounted at (inside a FastAPI or Starlette app, `Mount("/tools", app)`, the path still starts
    with `/tools`). Starlette's own rule, so a guard sees exactly what the router routes.

    Example:
        >>> route_path({"path": "/tools/mcp", "root_path": "/tools"}), route_path({"path": "/mcp"})
        ('/mcp', '/mcp')
    """
    path: str = scope["path"]
    root = scope.get("root_path", "")
    if not root or not path.startswith(root):
        return path
    if path == root:
        return ""
    return path[len(root) :] if path[len(root)] == "/" else path


class RefuseAmbiguousTokens:
    """ASGI middleware: 401 for a bearer token in the query string, or an `Authorization` header
    sent more than once (which one the server and a proxy would read is ambiguous)."""

    def __init__(self, app: ASGIApp, resource_metadata_url: Any = None) -> None:
        self.app = app
        challenge = 'Bearer error="invalid_request"'
        if resource_metadata_url is not None:  # a client learns where to get a token, as from any 401
            challenge += f', resource_metadata="{resource_metadata_url}"'
        self.challenge = {"www-authenticate": challenge}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = _ambiguous(scope)
            if problem is not None:
                logger.info("request refused: %s", problem)
                await oauth_error(401, "invalid_request", problem, self.challenge)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _ambiguous(scope: Scope) -> str | None:
    if sum(1 for name, _ in scope.get("headers", ()) if name.lower() == b"authorization") > 1:
        return "the Authorization header was sent more than once"
    query = scope.get("query_string", b"").decode("latin-1")
    if query and any(name.lower() in QUERY_TOKEN_NAMES for name, _ in parse_qsl(query, keep_blank_values=True)):
        return "bearer tokens are accepted in the Authorization header only"
    return None


def oauth_error(status: int, error: str, description: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """An OAuth-style error answer (`{"error": ..., "error_description": ...}`, RFC 6750 §3)."""
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=headers)


def metadata_routes(resource_url: str, authorization_servers: list[str], scopes: list[str]) -> list[Any]:
    """The RFC 9728 protected-resource metadata route(s) for `resource_url` (the SDK's).

    Raises:
        ValueError: naming `resource_url=` or `authorization_servers=` when one is not an http(s) URL.
    """
    return create_protected_resource_routes(
        resource_url=http_url(resource_url, "resource_url="),
        authorization_servers=[http_url(server, "authorization_servers=") for server in authorization_servers],
        scopes_supported=scopes or None,
    )


def http_url(url: str, option: str) -> AnyHttpUrl:
    """`url` as the SDK's `AnyHttpUrl`, or a `ValueError` naming `option` (never pydantic's bare
    "Input should be a valid URL").

    Example:
        >>> http_url("mcp.example.com/mcp", "resource_url=")
        Traceback (most recent call last):
        ValueError: resource_url= must start with http:// or https://, not 'mcp.example.com/mcp'
    """
    return AnyHttpUrl(checked_url(url, option))


def protect(
    app: Starlette,
    *,
    paths: Sequence[str],
    private: Mapping[str, Sequence[str]] | None = None,
    verifier: Verifier | None = None,
    authenticate: Authenticate | None = None,
    allow_anonymous: bool = False,
    resource_url: str | None = None,
) -> None:
    """Put the auth layers around `app` (outermost first): query-token refusal, authentication,
    the caller into the SDK's auth context, and the 401/403 guard on `paths` (with anonymous
    callers allowed: for the requests that present a bearer token to a `verifier`) and on each
    `private` path (for every request, anonymous callers allowed or not; with the scopes it
    names besides the required ones).
    """
    if verifier is not None and authenticate is not None:
        raise ValueError(BOTH_WAYS)
    if verifier is None and authenticate is None:
        raise ValueError("give auth= (a token verifier) or authenticate= (a hook) to protect the app")
    backend: AuthenticationBackend
    scopes: list[str] = []
    if verifier is not None:
        backend = BearerAuthBackend(SdkVerifier(verifier))
        scopes = list(verifier.required_scopes)
        if hasattr(verifier, "audience") and verifier.audience is None:
            logger.warning(
                "%r checks no audience: a token its issuer made for any other resource is accepted here; "
                "pass audience=%r",
                verifier,
                resource_url or "<this server's resource URL>",
            )
    else:
        assert authenticate is not None
        backend = HookBackend(authenticate)
    metadata_url = build_resource_metadata_url(http_url(resource_url, "resource_url=")) if resource_url else None
    # add_middleware puts each new layer outside the ones added before: innermost first.
    # (a hook decides alone who is anonymous; a verifier's anonymous callers send no token)
    guarded = paths if not allow_anonymous or verifier is not None else ()
    for path, extra in (private or {}).items():
        app.add_middleware(
            RequireAuthOn, paths=[path], required_scopes=[*scopes, *extra], resource_metadata_url=metadata_url
        )
    if guarded:
        app.add_middleware(
            RequireAuthOn,
            paths=guarded,
            required_scopes=scopes,
            resource_metadata_url=metadata_url,
            tokens_only=allow_anonymous,
        )
    app.add_middleware(AuthContextMiddleware)
    app.add_middleware(AuthenticationMiddleware, backend=NotedUnverifiable(backend, [*paths, *(private or {})]))
    app.add_middleware(RefuseAmbiguousTokens, resource_metadata_url=metadata_url)
