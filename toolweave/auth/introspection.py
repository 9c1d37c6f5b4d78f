"""`IntrospectionVerifier`: opaque bearer tokens, checked by the authorization server (RFC 7662).

Each token not seen recently is POSTed to the introspection endpoint (the verifier authenticates
as a client with `client_secret_basic`, id and secret form-encoded as RFC 6749 §2.3.1 says); an
`active` answer is the caller. Active answers are remembered briefly (`cache_ttl`, never past the
token's `exp`) so a client's every request does not cost a round trip; refusals are not
remembered. An answer that calls the token a refresh or ID token (`other_kind`) refuses it: some
servers introspect those as `active` too. The endpoint unreachable, slow (`timeout`) or answering
nonsense refuses the token: a caller is never let in because the check failed.

Example:
    >>> verifier = IntrospectionVerifier(
    ...     "https://auth.example.com/oauth2/introspect", "toolweave-gateway", "...",
    ...     audience="https://mcp.example.com/mcp",
    ... )
    >>> verifier.cache_ttl
    30
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, NoReturn

import anyio
import httpx2 as httpx

from toolweave.auth.cache import TokenCache
from toolweave.auth.client_auth import basic_client_auth
from toolweave.auth.endpoint_answer import AnswerTooLarge, ask
from toolweave.auth.verifier import (
    audiences,
    caller_from_claims,
    checked_url,
    claim_shown,
    epoch_seconds,
    issued_for,
    scope_names,
)
from toolweave.core.context import AuthInfo
from toolweave.core.errors import InvalidToken, VerifierUnavailable
from toolweave.core.shown import shown_url

logger = logging.getLogger("toolweave.auth")


class IntrospectionVerifier:
    """Verify opaque tokens with the authorization server's introspection endpoint.

    Args:
        url: The RFC 7662 introspection endpoint.
        client_id / client_secret: This server's credentials at the authorization server.
        issuer: When set, an answer's `iss` (if it has one) must equal it.
        audience: When set, an answer's `aud` (if it has one) must contain it (or, given a list,
            one of them), as for `JWTVerifier`.
        required_scopes: Scopes every request needs (a list, or one space-separated string; checked
            by the HTTP edge: 403 when missing).
        cache_ttl / cache_size: How long (seconds) and how many active answers are remembered.
        timeout: Seconds an introspection request may take.
        max_length: The longest token sent for introspection at all.
    """

    def __init__(
        self,
        url: str,
        client_id: str,
        client_secret: str,
        *,
        issuer: str | None = None,
        audience: str | Iterable[str] | None = None,
        required_scopes: Iterable[str] | str = (),
        cache_ttl: float = 30,
        cache_size: int = 4096,
        timeout: float = 5,
        max_length: int = 4096,
    ) -> None:
        self.url = checked_url(url, "IntrospectionVerifier url=")
        self.issuer = issuer
        self.audience = audiences(audience)
        self.required_scopes = scope_names(required_scopes)
        self.cache_ttl = cache_ttl
        self.timeout = timeout
        self.max_length = max_length
        self.requests = 0
        """How many introspection requests were made (for operators and tests)."""
        self._credentials = (client_id, client_secret)
        self._cache: TokenCache[AuthInfo] = TokenCache(cache_size, cache_ttl)
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        return f"IntrospectionVerifier({shown_url(self.url)!r}, client_id={self._credentials[0]!r})"

    async def verify(self, token: str) -> AuthInfo:
        """The caller behind `token`, as the authorization server describes it.

        Raises:
            InvalidToken: inactive, or for another audience.
            VerifierUnavailable: the endpoint could not say (unreachable, an error, no JSON object).
        """
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        if not token or len(token) > self.max_length:
            raise InvalidToken("token empty or too long")
        answer = await self._introspect(token)
        if answer.get("active") is not True:
            raise InvalidToken("the authorization server says the token is not active")
        self._check(answer)
        caller = caller_from_claims(token, answer)
        self._cache.put(token, caller, caller.expires_at)
        return caller

    async def aclose(self) -> None:
        """Close the pooled HTTP client (a new one is made on the next request)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _introspect(self, token: str) -> dict[str, Any]:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout, auth=basic_client_auth(*self._credentials))
        self.requests += 1
        form = {"token": token, "token_type_hint": "access_token"}
        try:
            with anyio.fail_after(self.timeout):  # the whole answer, not each read (httpx's timeout)
                reply = await ask(self._client, "POST", self.url, data=form, headers={"accept": "application/json"})
            answer = reply.json() if reply.status_code == 200 else None
        except (httpx.HTTPError, ValueError, RecursionError, TimeoutError) as error:  # RecursionError: too deep
            self._unavailable(str(error) if isinstance(error, AnswerTooLarge) else type(error).__name__)
        if reply.status_code != 200:
            self._unavailable(f"HTTP {reply.status_code}")  # 401: this server's credentials
        if not isinstance(answer, dict):
            raise VerifierUnavailable("the introspection answer is not a JSON object")
        return answer

    def _unavailable(self, why: str) -> NoReturn:
        logger.warning("token introspection at %s failed: %s", shown_url(self.url), why)
        raise VerifierUnavailable("the introspection endpoint could not be asked") from None

    def _check(self, answer: dict[str, Any]) -> None:
        kind = other_kind(answer)
        if kind is not None:
            raise InvalidToken(f"the token is no access token: the authorization server calls it {kind!r}")
        if answer.get("exp") is not None and epoch_seconds(answer["exp"]) is None:
            raise InvalidToken("the introspection answer's exp is not a number of seconds")
        if self.issuer is not None and answer.get("iss", self.issuer) != self.issuer:
            raise InvalidToken(
                f"the token was issued by another issuer ({claim_shown(answer['iss'])}, not {self.issuer!r})"
            )
        if self.audience is not None and "aud" in answer:
            audience = answer["aud"]
            audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
            if not issued_for(audiences, self.audience):
                wanted = " or ".join(map(repr, self.audience))
                raise InvalidToken(f"the token is for another audience ({claim_shown(audience)}, not {wanted})")


OTHER_KINDS = frozenset({"refresh_token", "refresh", "offline", "id_token", "id"})
"""How authorization servers name, in an introspection answer, tokens that are no access token:
Ory Hydra's `token_use`, Keycloak's `typ` (`Refresh`, `Offline`, `ID`), a `token_type` so written."""


def other_kind(answer: dict[str, Any]) -> str | None:
    """What an active introspection answer calls its token, when that is not an access token
    (a refresh or ID token: servers introspect those as `active` too, whatever the hint said).

    Example:
        >>> other_kind({"active": True, "token_use": "refresh_token"}), other_kind({"active": True, "typ": "Bearer"})
        ('refresh_token', None)
    """
    for key in ("token_use", "typ", "token_type"):
        value = answer.get(key)
        if isinstance(value, str) and value.lower() in OTHER_KINDS:
            return value
    return None
