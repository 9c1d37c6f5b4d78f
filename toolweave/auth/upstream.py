"""Credentials toolweave presents to an upstream: its own, never the caller's by default.

A gateway that verifies its callers must not pass their tokens on (the MCP authorization spec
forbids token passthrough: the token's audience is the gateway); only a mount that says
`forward_caller_token=True` does, over per-caller sessions (`toolweave.mcp.upstream_callers`). An
upstream that needs credentials gets the gateway's own, as an `httpx` auth on its HTTP client:

- `Bearer(token)`: a fixed or rotating token — a string, `FromEnv("GH_TOKEN")` (read on every
  request, so rotating it needs no restart), a `Secret`, or a function returning the token;
- `OAuthClientCredentials(token_url, client_id, client_secret, scopes=)`: the OAuth 2.0
  client-credentials grant (RFC 6749 §4.4), the token fetched once, shared by all requests,
  refreshed shortly before it expires (`renew_after`) and again when the upstream answers 401.
  A token it cannot get is `UpstreamFailed`: the operator's to fix, so a client gets the masked
  message and the log names the endpoint and what it said (a client never learns the
  authorization server's address or the gateway's client id).

The gateway's credential is its own secret, never its callers': each value one of these sends (the
token, and the client secret sent to the token endpoint) is held among the secrets in flight
(`toolweave.transforms.redact.HeldSecret`) from its first use, so an upstream that echoes the
`Authorization` header it got in a JSON-RPC error has it `[redacted]` before the SDK reads it, and
the CLI's logs show `***` instead.

Example:
    >>> import httpx2
    >>> request = httpx2.Request("POST", "https://mcp.example.com/mcp")
    >>> next(Bearer("t-123").auth_flow(request)).headers["authorization"]
    'Bearer t-123'

    RemoteServer.http("https://api.githubcopilot.com/mcp/", auth=Bearer(FromEnv("GH_TOKEN")))
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable, Generator, Iterable
from typing import Any

import anyio
import httpx2

from toolweave.auth.client_auth import basic_client_auth
from toolweave.auth.endpoint_answer import Answer, AnswerTooLarge, ask
from toolweave.auth.verifier import scope_names
from toolweave.core.context import Context
from toolweave.core.errors import UpstreamFailed
from toolweave.transforms.redact import HeldSecret
from toolweave.transforms.sources import Secret, Source

TokenSource = str | Secret | Source | Callable[[], str]
"""Where a bearer token comes from: a string, a `Secret`, a source such as `FromEnv`, a function."""
SHORTEST_REUSE = 1.0
"""Seconds a fetched access token is used at the least, whatever its `expires_in` says."""


def renew_after(lifetime: float, refresh_before: float) -> float:
    """Seconds after its fetch at which a token that lives `lifetime` seconds is renewed.

    `refresh_before` seconds before it expires, so that no request leaves with a token about to
    lapse on its way; but that margin is at most half the lifetime, or a token living less than
    `refresh_before` would be renewed at once, one fetch per request: a short-lived token serves
    the first half of its life instead. Never sooner than `SHORTEST_REUSE` (an `expires_in` of 0
    must not mean a fetch per request either: if the upstream refuses the token, its 401 renews it).

    Example:
        >>> renew_after(3600, 60), renew_after(90, 60), renew_after(30, 60), renew_after(0, 60)
        (3540, 45.0, 15.0, 1.0)
    """
    return max(lifetime - min(refresh_before, lifetime / 2), SHORTEST_REUSE)


class Bearer(httpx2.Auth):
    """`Authorization: Bearer <token>` on every request to the upstream, the token read each time."""

    def __init__(self, token: TokenSource) -> None:
        if isinstance(token, Source) and token.varies is True:  # a read of the request: there is none here
            raise TypeError(
                f"Bearer cannot send {token.label}: the gateway's credential goes with requests no caller "
                "makes (connecting, listing), for every caller alike; to send each caller's own token, mount "
                "the upstream with forward_caller_token=True"
            )
        self._token = token
        self._held = HeldSecret()

    def __repr__(self) -> str:
        return "Bearer(...)"

    def token(self) -> str:
        """The token to send now (held among the secrets in flight from now on)."""
        token = self._token
        if isinstance(token, Secret):
            value = str(token.value)
        elif isinstance(token, Source):
            value = str(token.get(Context()))
        elif callable(token):
            value = token()
        else:
            value = token
        self._held.hold(value)
        return value

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token()}"
        yield request


class OAuthClientCredentials(httpx2.Auth):
    """The gateway's own access token, from the client-credentials grant at `token_url`.

    Args:
        token_url: The authorization server's token endpoint.
        client_id: The gateway's client id there.
        client_secret: Its secret (a string, `Secret` or `FromEnv`), sent with HTTP Basic
            (`client_secret_basic`: id and secret form-encoded, RFC 6749 §2.3.1).
        scopes: Scopes to ask for (a list, or one space-separated string).
        audience: An `audience` parameter, for servers that want one (Auth0 and others).
        resource: An RFC 8707 `resource` parameter: the upstream's URL, for servers that issue
            tokens per resource (an MCP upstream checks that its tokens name it).
        refresh_before: Seconds before expiry at which the token is renewed (at most half its
            lifetime: see `renew_after`).
        timeout: Seconds the token request may take.
    """

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: TokenSource,
        *,
        scopes: Iterable[str] | str = (),
        audience: str | None = None,
        resource: str | None = None,
        refresh_before: float = 60,
        timeout: float = 10,
    ) -> None:
        self.token_url = token_url
        self.client_id = client_id
        self._secret = Bearer(client_secret)
        self.scopes = scope_names(scopes)
        self.audience = audience
        self.resource = resource
        self.refresh_before = refresh_before
        self.timeout = timeout
        self._token: str | None = None
        self._held = HeldSecret()
        self._expires = 0.0
        self._lock: anyio.Lock | None = None
        self.fetches = 0
        """How many tokens were fetched (one per expiry, not one per request)."""

    def __repr__(self) -> str:
        return f"OAuthClientCredentials({self.token_url!r}, client_id={self.client_id!r})"

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        raise RuntimeError("OAuthClientCredentials works with async HTTP clients only")

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        token = await self._current(stale=None)
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:  # revoked or rotated early: one fresh token, one retry
            request.headers["Authorization"] = f"Bearer {await self._current(stale=token)}"
            yield request

    async def _current(self, stale: str | None) -> str:
        """A valid token: the cached one unless it expires soon or is `stale`; one fetch at a time."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if self._token is None or self._token == stale or time.monotonic() >= self._expires:
                self._token, lifetime = await self._fetch()
                self._held.hold(self._token)
                self._expires = time.monotonic() + renew_after(lifetime, self.refresh_before)
            return self._token

    async def _fetch(self) -> tuple[str, float]:
        form: dict[str, Any] = {"grant_type": "client_credentials"}
        if self.scopes:
            form["scope"] = " ".join(self.scopes)
        if self.audience:
            form["audience"] = self.audience
        if self.resource:
            form["resource"] = self.resource
        self.fetches += 1
        where = f"the token endpoint {self.token_url!r}"
        try:
            with anyio.fail_after(self.timeout):  # the whole answer, not each read (httpx's timeout)
                async with httpx2.AsyncClient(timeout=self.timeout) as http:
                    response = await ask(
                        http,
                        "POST",
                        self.token_url,
                        data=form,
                        auth=basic_client_auth(self.client_id, self._secret.token()),
                    )
        except (httpx2.HTTPError, TimeoutError, AnswerTooLarge) as error:
            raise UpstreamFailed(f"cannot get an access token from {where}: {type(error).__name__}") from None
        if response.status_code != 200:
            error_code = _json(response).get("error", f"HTTP {response.status_code}")
            raise UpstreamFailed(f"{where} refused the client credentials of {self.client_id!r}: {error_code}")
        answer = _json(response)
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise UpstreamFailed(f"{where} answered without an access_token")
        lifetime = answer.get("expires_in")
        return token, float(lifetime) if isinstance(lifetime, int | float) else 3600.0


def _json(response: Answer) -> dict[str, Any]:
    try:
        found = response.json()
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
