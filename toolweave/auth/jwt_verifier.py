"""`JWTVerifier`: bearer tokens that are JWTs, checked against a JWKS endpoint or a public key.

What a token must pass, in order (the first failure refuses it, and the reason is logged for the
operator — never the token):

- at most `max_length` characters, three base64url parts, a JSON header;
- `alg` in the allow-list: asymmetric algorithms only (`RS*`, `PS*`, `ES*`, `EdDSA`), so `none`
  and HMAC signed with a public key can never pass, whatever the token says;
- with `token_types`, the header's `typ` among them: RFC 9068 access tokens say `at+jwt`, so an
  ID token of the same issuer (`JWT`) cannot pass for one (off by default: several identity
  providers still send `JWT` on their access tokens; the `aud` check keeps ID tokens out there);
- a key: the JWKS key with the token's `kid` (an unknown `kid` triggers one refetch of the JWKS,
  at most once per `refetch_interval` seconds, shared by every request waiting on it — key
  rotation without a thundering herd), or the one configured `public_key`; the key must fit the
  algorithm (`verifying_key`: its type, an EC key's curve, an RSA key's 2048 bits, its JWK's
  `alg`), and of several keys under one `kid`, the one that fits is used;
- the signature; `exp` (required), `nbf` and `iat` with `leeway` seconds of clock skew;
- `iss` equal to `issuer`, `aud` containing `audience` (RFC 8707: this server's resource URL),
  when those are configured.

A verified token is remembered (bounded, until it expires or `cache_ttl` passes), so the
signature of a token a client sends on every request is checked once. Key rotation: a JWKS
fetched without a key it had before (or with another key under its `kid`) forgets every
remembered token, so tokens signed by a withdrawn key fail from the fetch on. The JWKS is
fetched again when a token names a `kid` it lacks (the new key of a rotation) or `jwks_ttl`
after the last fetch: until then, a withdrawn key is still trusted, as by any verifier that
caches a JWKS.

Example:
    >>> verifier = JWTVerifier(
    ...     jwks_uri="https://auth.example.com/.well-known/jwks.json",
    ...     issuer="https://auth.example.com/",
    ...     audience="https://mcp.example.com/mcp",
    ...     required_scopes=["tools:call"],
    ... )
    >>> verifier.algorithms
    ('RS256', 'ES256')
    >>> JWTVerifier(public_key="...", algorithms=["HS256"])
    Traceback (most recent call last):
    ...
    ValueError: JWTVerifier algorithms must be asymmetric (RS*, PS*, ES*, EdDSA); refused: HS256
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import anyio
import httpx2 as httpx
import jwt
from jwt.api_jwk import PyJWK

from toolweave.auth.cache import TokenCache
from toolweave.auth.endpoint_answer import ask
from toolweave.auth.jws import Compact, check_claims
from toolweave.auth.verifier import audiences, caller_from_claims, checked_url, claim_shown, scope_names
from toolweave.auth.verifying_key import ASYMMETRIC, VerifyingKey, verifying_key
from toolweave.core.context import AuthInfo
from toolweave.core.errors import InvalidToken, VerifierUnavailable
from toolweave.core.shown import shown_url, url_secrets, without

logger = logging.getLogger("toolweave.auth")

_ACCEPT_JSON = {"accept": "application/json"}
RETRY_WITHOUT_KEYS = 1.0
"""Seconds after a failed JWKS fetch before the next, while no signing key is known yet (the
endpoint was down when the server started): tokens are accepted within a second of its return."""


class JWTVerifier:
    """Verify JWT bearer tokens (signature, expiry, issuer, audience) against a JWKS or a public key.

    Args:
        jwks_uri: Where the issuer publishes its signing keys (JSON Web Key Set).
        public_key: A PEM public key or X.509 certificate (or a JWK dict), instead of `jwks_uri`.
        issuer: The exact `iss` every token must carry.
        audience: A value the token's `aud` must contain; for an MCP server, its resource URL.
        algorithms: The signature algorithms accepted (asymmetric only).
        leeway: Seconds of clock skew tolerated on `exp`, `nbf` and `iat` (served over HTTP, a
            token past its `exp` is refused all the same: the SDK's edge allows no leeway there).
        required_scopes: Scopes every request needs (a list, or one space-separated string; checked
            by the HTTP edge: 403 when missing).
        refetch_interval: The least seconds between two JWKS refetches caused by an unknown `kid`,
            and after a failed fetch while keys are known (with none known yet: `RETRY_WITHOUT_KEYS`).
        jwks_ttl: Seconds after which the JWKS is refetched on the next request.
        timeout: Seconds a JWKS fetch may take.
        cache_size / cache_ttl: How many verified tokens are remembered, and for how long at most.
        max_length: The longest token considered at all.
        token_types: The header `typ` values accepted (compared without case, an `application/`
            prefix ignored): `["at+jwt"]` for RFC 9068 access tokens; `None` accepts any.
    """

    def __init__(
        self,
        *,
        jwks_uri: str | None = None,
        public_key: str | Mapping[str, Any] | None = None,
        issuer: str | None = None,
        audience: str | Iterable[str] | None = None,
        algorithms: Iterable[str] | str = ("RS256", "ES256"),
        leeway: float = 30,
        required_scopes: Iterable[str] | str = (),
        refetch_interval: float = 30,
        jwks_ttl: float = 300,
        timeout: float = 5,
        cache_size: int = 4096,
        cache_ttl: float = 300,
        max_length: int = 16_384,
        token_types: Iterable[str] | None = None,
    ) -> None:
        if (jwks_uri is None) == (public_key is None):
            raise ValueError("JWTVerifier needs exactly one of jwks_uri= or public_key=")
        self.algorithms = (algorithms,) if isinstance(algorithms, str) else tuple(algorithms)
        refused = [name for name in self.algorithms if name not in ASYMMETRIC]
        if refused or not self.algorithms:
            raise ValueError(
                "JWTVerifier algorithms must be asymmetric (RS*, PS*, ES*, EdDSA); refused: "
                + (", ".join(refused) or "an empty list")
            )
        self.jwks_uri = None if jwks_uri is None else checked_url(jwks_uri, "JWTVerifier jwks_uri=")
        self.issuer = issuer
        self.audience = audiences(audience)
        self.leeway = leeway
        self.required_scopes = scope_names(required_scopes)
        self.refetch_interval = refetch_interval
        self.jwks_ttl = jwks_ttl
        self.timeout = timeout
        self.max_length = max_length
        self.token_types = None if token_types is None else frozenset(map(_media_type, token_types))
        self.jwks_fetches = 0
        """How many times the JWKS was fetched (for operators and tests)."""
        self._cache: TokenCache[AuthInfo] = TokenCache(cache_size, cache_ttl)
        self._keys: dict[str | None, tuple[VerifyingKey, ...]] = {}
        """The usable keys by `kid`: several under one `kid` are alternatives (RFC 7517 §4.5)."""
        self._unusable: dict[str, str] = {}
        """Why each key of the JWKS left out was, by `kid`: said when a token names one."""
        self._fetched_at = -float("inf")
        self._failed_at = -float("inf")
        self._refetched_at = -float("inf")
        self._lock = anyio.Lock()
        if public_key is not None:
            self._keys = {None: (_static_key(public_key, self.algorithms),)}

    def __repr__(self) -> str:
        source = f"jwks_uri={shown_url(self.jwks_uri)!r}" if self.jwks_uri else "public_key=..."
        return f"JWTVerifier({source}, issuer={self.issuer!r}, audience={self.audience!r})"

    async def verify(self, token: str) -> AuthInfo:
        """The verified caller behind `token`.

        Raises:
            InvalidToken: the token is refused; the message says why (for logs, not for clients).
            VerifierUnavailable: no signing key is known (the JWKS endpoint failed, or held none
                this verifier can use).
        """
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        if len(token) > self.max_length:
            raise InvalidToken(f"token longer than {self.max_length} characters")
        try:
            parsed = Compact.parse(token)
        except jwt.PyJWTError as error:
            raise InvalidToken(f"malformed token ({error})") from None
        try:
            algorithm = parsed.header.get("alg")
            if algorithm not in self.algorithms:
                raise InvalidToken(f"algorithm {claim_shown(algorithm)} is not allowed")
            typ = parsed.header.get("typ")
            if self.token_types is not None and _media_type(typ) not in self.token_types:
                raise InvalidToken(f"token type {claim_shown(typ)} is not accepted (not an access token)")
            key = _fitting(await self._named(parsed.header.get("kid")), algorithm)
            parsed.verify(algorithm, key.key)
            claims = parsed.claims
            check_claims(claims, now=time.time(), leeway=self.leeway, issuer=self.issuer, audience=self.audience)
        except jwt.PyJWTError as error:
            raise InvalidToken(f"{type(error).__name__}: {error}") from None
        caller = caller_from_claims(token, claims)
        self._cache.put(token, caller, caller.expires_at)
        return caller

    async def _named(self, kid: Any) -> tuple[VerifyingKey, ...]:
        """The keys under `kid` (the JWKS fetched when due, or again once when it lacks `kid`)."""
        if self.jwks_uri is None:
            return self._keys[None]
        now = time.monotonic()
        # after a failed fetch, try again soon while no key is known, else at the refetch pace
        retry = RETRY_WITHOUT_KEYS if not self._keys else self.refetch_interval
        if now - self._fetched_at > self.jwks_ttl and now - self._failed_at > retry:
            with contextlib.suppress(InvalidToken):  # down: keep the keys already known (logged in _fetch)
                await self._refresh(forced=False)
        if not self._keys:
            raise VerifierUnavailable("the signing keys could not be fetched (the JWKS failed or held no usable key)")
        keys = self._find(kid)
        if not keys and await self._refresh(forced=True):
            keys = self._find(kid)
        if not keys:
            why = self._unusable.get(kid) if isinstance(kid, str) else None
            if why is not None:
                raise InvalidToken(f"the JWKS key with kid {claim_shown(kid)} is not used here ({why})")
            raise InvalidToken(f"no signing key with kid {claim_shown(kid)} in the JWKS")
        return keys

    def _find(self, kid: Any) -> tuple[VerifyingKey, ...]:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid, ()) if isinstance(kid, str) else ()

    async def _refresh(self, *, forced: bool) -> bool:
        """Fetch the JWKS once for everyone waiting; a forced refetch at most once per interval."""
        started = time.monotonic()
        async with self._lock:
            if self._fetched_at >= started:  # another request fetched it while this one waited
                return True
            if self._failed_at >= started:  # ...or tried and failed: not again at once
                return False
            if forced and started - self._refetched_at < self.refetch_interval:
                return False
            if forced:
                self._refetched_at = started
            await self._fetch()
            return True

    async def _fetch(self) -> None:
        assert self.jwks_uri is not None
        self.jwks_fetches += 1
        try:
            # bounded in all (a server trickling bytes would hold every request waiting for the keys) and in size
            with anyio.fail_after(self.timeout):
                async with httpx.AsyncClient(timeout=self.timeout) as client:
                    answer = await ask(client, "GET", self.jwks_uri, headers=_ACCEPT_JSON)
            if answer.status_code != 200:
                redirect = " (a redirect, not followed: give jwks_uri= the address it names)"
                raise ValueError(f"HTTP {answer.status_code}{redirect if 300 <= answer.status_code < 400 else ''}")
            keys, unusable = _jwks(answer.json(), self.algorithms)
        except (httpx.HTTPError, ValueError, RecursionError, TimeoutError) as error:  # RecursionError: too deep
            # Keep serving with the keys already known (an empty set mid-rotation too), and try again
            # at the pace of a failure: tokens signed by new keys fail until it works.
            self._failed_at = time.monotonic()
            why = without(str(error) or type(error).__name__, url_secrets(self.jwks_uri))  # httpx quotes the URL
            logger.warning("could not fetch the JWKS at %s: %s", shown_url(self.jwks_uri), why)
            raise VerifierUnavailable("the signing keys could not be fetched") from None
        self._fetched_at = time.monotonic()
        if any(keys.get(kid) != key for kid, key in self._keys.items()):
            self._cache.clear()  # a key was withdrawn or replaced: the tokens it signed fail from now on
        self._keys = keys
        self._unusable = unusable


def _media_type(typ: Any) -> str | None:
    """A `typ` header as RFC 7515 compares it: without case, the `application/` prefix implied."""
    if not isinstance(typ, str):
        return None
    lowered: str = typ.lower()
    return lowered.removeprefix("application/")


def _fitting(keys: tuple[VerifyingKey, ...], algorithm: str) -> VerifyingKey:
    """The key among `keys` (those of one `kid`) that may verify `algorithm`; `InvalidToken` if none."""
    for key in keys:
        if algorithm in key.algorithms:
            return key
    fits = ", ".join(sorted({name for key in keys for name in key.algorithms}))
    kinds = " or ".join(sorted({key.key_type for key in keys}))
    raise InvalidToken(f"algorithm {algorithm!r} does not fit the {kinds} key (it verifies {fits})")


class _KeySet(NamedTuple):
    usable: dict[str | None, tuple[VerifyingKey, ...]]
    unusable: dict[str, str]
    """Why each key left out was, by its `kid`."""


def _jwks(document: Any, algorithms: tuple[str, ...]) -> _KeySet:
    """The usable signing keys of a JWKS document by `kid`, and why the others are not.

    Raises:
        ValueError: not a JWKS, or none of its keys is usable (each one's reason given).

    Example:
        >>> _jwks({"keys": [{"kid": "k1", "kty": "oct", "alg": "HS256", "k": "c2VjcmV0"}]}, ("RS256",))
        Traceback (most recent call last):
        ...
        ValueError: no signing key it holds is usable here (kid 'k1': alg 'HS256' is not allowed)
    """
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("not a JSON Web Key Set (no 'keys' list)")
    keys: dict[str | None, tuple[VerifyingKey, ...]] = {}
    skipped: list[str] = []
    unusable: dict[str, str] = {}
    for entry in document["keys"]:
        if not isinstance(entry, dict):
            skipped.append("an entry that is not an object")
            continue
        kid = entry.get("kid")
        why = None
        if entry.get("use", "sig") != "sig":
            why = f"use {str(entry['use'])[:20]!r}, not 'sig'"
        elif kid is not None and not isinstance(kid, str):
            why = "not a string"  # a token's `kid` is looked up as one: never chosen
        elif entry.get("alg") is not None and entry["alg"] not in algorithms:
            why = f"alg {str(entry['alg'])[:20]!r} is not allowed"
        else:
            try:
                jwk = PyJWK.from_dict(entry)
                key = verifying_key(jwk.key_type or "", jwk.key, algorithms, entry.get("alg"))
            except (jwt.PyJWTError, ValueError) as error:  # a key type, curve or size this verifier cannot use
                why = str(error)
            else:
                keys[kid] = (*keys.get(kid, ()), key)
        if why is not None:
            skipped.append(f"kid {str(kid)[:40]!r}: {why}")
            if isinstance(kid, str):
                unusable[kid] = why
    if not keys:
        raise ValueError(f"no signing key it holds is usable here ({'; '.join(skipped[:5]) or 'it holds none'})")
    return _KeySet(keys, unusable)


def _static_key(public_key: str | Mapping[str, Any], algorithms: tuple[str, ...]) -> VerifyingKey:
    """The configured key (a JWK dict, a PEM public key (RSA, EC, Ed25519/Ed448) or a PEM X.509
    certificate holding one, what many issuers publish) with the `algorithms` it may verify."""
    if isinstance(public_key, Mapping):
        try:
            jwk = PyJWK.from_dict(dict(public_key))
        except jwt.PyJWTError as error:
            raise ValueError(f"JWTVerifier public_key is not a usable JWK: {error}") from None
        return _usable("JWK", jwk.key_type or "", jwk.key, algorithms, public_key.get("alg"))
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    from cryptography.x509 import load_pem_x509_certificate

    text = public_key.strip().encode()
    try:
        loaded = (
            load_pem_x509_certificate(text).public_key()
            if text.startswith(b"-----BEGIN CERTIFICATE-----")
            else load_pem_public_key(text)
        )
    except ValueError as error:
        raise ValueError(
            f"JWTVerifier public_key is not a PEM public key (BEGIN PUBLIC KEY) or certificate: {error}"
        ) from None
    if isinstance(loaded, rsa.RSAPublicKey):
        return _usable("key", "RSA", loaded, algorithms)
    if isinstance(loaded, ec.EllipticCurvePublicKey):
        return _usable("key", "EC", loaded, algorithms)
    if isinstance(loaded, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
        return _usable("key", "OKP", loaded, algorithms)
    raise ValueError("JWTVerifier public_key is not an RSA, EC or EdDSA public key")


def _usable(what: str, key_type: str, key: Any, algorithms: tuple[str, ...], stated: Any = None) -> VerifyingKey:
    try:
        return verifying_key(key_type, key, algorithms, stated)
    except ValueError as error:
        raise ValueError(f"JWTVerifier public_key: the {key_type} {what} is unusable here, {error}") from None
