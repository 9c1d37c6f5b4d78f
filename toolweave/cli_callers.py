"""The caller a CLI command acts as, held to what the HTTP edge holds a caller to.

`toolweave list --scopes/--as-token` lists for a caller and `toolweave call -H "Authorization:
Bearer ..."` calls as one. With `server.auth` in the config both answer as the HTTP edge would,
before anything is listed or called: a token its verifier refuses (the edge's 401), one that
cannot be checked now (503), and a caller without one of `server.auth.required_scopes` (403) are
refused, with the reason (never the token).

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
from collections.abc import Mapping, Sequence

from toolweave.auth.verifier import Verifier, expired
from toolweave.core.context import AuthInfo
from toolweave.core.errors import InvalidToken, VerifierUnavailable

logger = logging.getLogger("toolweave.auth")


class CallerRefused(Exception):
    """A caller the HTTP edge would refuse; the message says why."""


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an `authorization: Bearer <token>` header (the scheme in any case, as the
    edge reads it); None without the header, `CallerRefused` for another scheme.

    Example:
        >>> bearer_token({"authorization": "bearer t0k3n"}), bearer_token({})
        ('t0k3n', None)
    """
    value = headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise CallerRefused("server.auth verifies an 'Authorization: Bearer <token>' header, and this is not one")
    return token.strip()


async def token_caller(verifier: Verifier, token: str) -> AuthInfo:
    """The caller `verifier` finds behind `token`, if it holds the scopes every request needs."""
    try:
        caller = await verifier.verify(token)
    except VerifierUnavailable as unavailable:
        raise CallerRefused(f"the token cannot be checked now: {unavailable}") from None
    except InvalidToken as refused:
        raise CallerRefused(f"the token was refused: {refused}") from None
    except Exception as error:  # (over HTTP: 500, the traceback logged under an incident id)
        logger.error("the token verifier failed", exc_info=error)
        raise CallerRefused(f"the token could not be checked: the verifier failed ({type(error).__name__})") from None
    if expired(caller):
        raise CallerRefused("the token was refused: expired (the HTTP edge allows no leeway past exp)")
    return admitted(verifier, caller)


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
