"""Who is calling: a toy bearer-token check for `examples/identity.yaml`.

A real deployment verifies a JWT (signature, issuer, audience, expiry) here and returns its
claims. The tokens below are demo values.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolweave import AuthInfo

_TOKENS = {
    "alice-token": {"sub": "alice", "name": "Alice"},
    "bob-token": {"sub": "bob", "name": "Bob"},
}


def authenticate(headers: Mapping[str, str]) -> AuthInfo | None:
    """The caller's identity from `Authorization: Bearer <token>`, or None."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    claims = _TOKENS.get(token) if scheme.lower() == "bearer" else None
    if claims is None:
        return None
    return AuthInfo(subject=claims["sub"], claims=claims, token=token)
