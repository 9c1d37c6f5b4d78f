"""What every token verifier is: `async verify(token) -> AuthInfo`, raising `InvalidToken`.

`JWTVerifier` (signed JWTs, JWKS or public key) and `IntrospectionVerifier` (opaque tokens,
RFC 7662) are the two built in; any object with this method plugs into
`server.http_app(auth=...)` the same way.

Example:
    >>> import anyio
    >>> class Static:
    ...     async def verify(self, token: str) -> AuthInfo:
    ...         if token != "let-me-in":
    ...             raise InvalidToken("unknown token")
    ...         return AuthInfo(subject="ada", scopes=("notes",))
    >>> anyio.run(Static().verify, "let-me-in").subject
    'ada'
    >>> scopes_of({"scope": "read write"}), scopes_of({"scp": ["read"]})
    (('read', 'write'), ('read',))
    >>> checked_url("auth.example.com/jwks.json", "jwks_uri=")
    Traceback (most recent call last):
    ValueError: jwks_uri= must start with http:// or https://, not 'auth.example.com/jwks.json'
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from pydantic import AnyHttpUrl, ValidationError

from toolweave.core.context import AuthInfo
from toolweave.core.errors import InvalidToken

__all__ = [
    "AuthInfo",
    "InvalidToken",
    "Verifier",
    "audiences",
    "caller_from_claims",
    "checked_url",
    "claim_shown",
    "epoch_seconds",
    "scope_names",
    "scopes_of",
    "url_problem",
]


@runtime_checkable
class Verifier(Protocol):
    """Turns a bearer token into the verified caller, or raises `InvalidToken`.

    Attributes:
        required_scopes: Scopes every request needs (the HTTP edge answers 403 without them).
    """

    required_scopes: tuple[str, ...]

    async def verify(self, token: str) -> AuthInfo:
        """The verified caller behind `token`; `InvalidToken` (with the reason) when refused."""
        ...


def expired(caller: AuthInfo) -> bool:
    """Whether `caller`'s token is past its `exp` now: a verifier may accept it within its leeway,
    but the HTTP edge (the SDK's bearer backend) allows none past `exp`, so neither does a caller
    the CLI acts as.

    Example:
        >>> expired(AuthInfo(expires_at=1)), expired(AuthInfo()), expired(AuthInfo(expires_at=2**40))
        (True, False, False)
    """
    return caller.expires_at is not None and caller.expires_at < int(time.time())


def scopes_of(claims: Mapping[str, Any]) -> tuple[str, ...]:
    """The scopes a token grants: its `scope` (space-separated, RFC 8693/9068) or `scp` claim."""
    granted = claims.get("scope", claims.get("scp", ()))
    if isinstance(granted, str):
        return tuple(granted.split())
    if isinstance(granted, list | tuple):
        return tuple(str(scope) for scope in granted)
    return ()


def scope_names(scopes: Iterable[str] | str) -> tuple[str, ...]:
    """Scopes as given to a verifier: a list, or one space-separated string as in a token's
    `scope` claim (`"mcp notes"`, not the letters of it).

    Example:
        >>> scope_names("mcp notes"), scope_names(["mcp"])
        (('mcp', 'notes'), ('mcp',))
    """
    return tuple(scopes.split()) if isinstance(scopes, str) else tuple(scopes)


def caller_from_claims(token: str, claims: dict[str, Any]) -> AuthInfo:
    """The caller a verified token (or an active introspection answer) describes."""
    subject = claims.get("sub")
    client_id = claims.get("client_id") or claims.get("azp")
    expires = claims.get("exp")
    return AuthInfo(
        subject=str(subject) if subject is not None else None,
        scopes=scopes_of(claims),
        claims=claims,
        token=token,
        client_id=str(client_id) if client_id is not None else None,
        expires_at=epoch_seconds(expires),
    )


def audiences(audience: str | Iterable[str] | None) -> list[str] | None:
    """The audiences a verifier accepts: one, a list of them, or `None` (no audience checked).

    Example:
        >>> audiences("https://mcp.example.com/mcp"), audiences([]), audiences(None)
        (['https://mcp.example.com/mcp'], None, None)
    """
    return [audience] if isinstance(audience, str) else list(audience or []) or None


@functools.lru_cache(maxsize=256)
def audience_form(audience: str) -> str:
    """`audience` as audiences are compared: an http(s) URL with its scheme and host in lower
    case, no default port and no trailing `/` (the form the RFC 9728 metadata advertises is
    normalised, and a client asks for a token for what it advertises); anything else as it is.

    Example:
        >>> audience_form("https://MCP.example.com:443/mcp/"), audience_form("api://toolweave")
        ('https://mcp.example.com/mcp', 'api://toolweave')
    """
    try:
        parts = urlsplit(audience)
        port = parts.port
    except ValueError:
        return audience
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return audience
    scheme = parts.scheme.lower()
    shown_port = f":{port}" if port is not None and port != {"http": 80, "https": 443}[scheme] else ""
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    path = parts.path.rstrip("/")
    return urlunsplit((scheme, f"{host}{shown_port}", path, parts.query, ""))


def issued_for(found: Iterable[Any], accepted: Iterable[str]) -> bool:
    """Whether one of a token's audiences `found` is one of `accepted` (see `audience_form`).

    Example:
        >>> issued_for(["https://mcp.example.com/"], ["https://mcp.example.com"])
        True
    """
    wanted = {audience_form(audience) for audience in accepted}
    return any(isinstance(audience, str) and audience_form(audience) in wanted for audience in found)


def claim_shown(value: Any) -> str:
    """A claim's value for the operator's log (why a token was refused), cut short: the token is
    the client's to write.

    Example:
        >>> claim_shown("https://issuer.test"), len(claim_shown("x" * 500))
        ("'https://issuer.test'", 120)
    """
    shown = repr(value)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def epoch_seconds(value: Any) -> int | None:
    """An `exp` claim as whole epoch seconds; `None` for anything but a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if isinstance(value, int) or math.isfinite(value) else None


def url_problem(url: str) -> str | None:
    """What keeps `url` from being an http(s) URL, as a JWKS or introspection endpoint and the
    URLs of the RFC 9728 metadata must be; `None` when it is one.

    Example:
        >>> url_problem("https://auth.example.com/jwks.json") is None
        True
        >>> url_problem("mcp.example.com/mcp"), url_problem("https://")
        ('must start with http:// or https://', 'is not a valid URL (empty host)')
    """
    if not url.startswith(("http://", "https://")):
        return "must start with http:// or https://"
    try:
        AnyHttpUrl(url)
    except ValidationError as error:
        reason = (error.errors()[0].get("ctx") or {}).get("error", "not parseable")
        return f"is not a valid URL ({reason})"
    return None


def checked_url(url: str, option: str) -> str:
    """`url` if it is an http(s) URL (`url_problem`), else a `ValueError` naming `option`."""
    problem = url_problem(url)
    if problem is not None:
        raise ValueError(f"{option} {problem}, not {url!r}")
    return url
