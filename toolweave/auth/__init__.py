"""Verified callers: bearer-token verifiers for the HTTP edge.

- `JWTVerifier`: signed JWTs, against a JWKS endpoint (cached, rotation-aware) or a public key;
- `IntrospectionVerifier`: opaque tokens, asked of the authorization server (RFC 7662);
- `Verifier`: what both are (`async verify(token) -> AuthInfo`, raising `InvalidToken`), for your own;
- `Bearer`, `OAuthClientCredentials`: the gateway's own credentials for an HTTP upstream
  (`RemoteServer.http(url, auth=...)`); a caller's token is never passed on.

Serve with one: `server.http_app(auth=verifier, resource_url="https://mcp.example.com/mcp")`; limit
what each caller sees and uses with `toolweave.Authorize(scopes=..., claims=...)`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolweave.auth.verifier import Verifier, scopes_of

if TYPE_CHECKING:
    from toolweave.auth.introspection import IntrospectionVerifier
    from toolweave.auth.jwt_verifier import JWTVerifier
    from toolweave.auth.upstream import Bearer, OAuthClientCredentials

__all__ = ["Bearer", "IntrospectionVerifier", "JWTVerifier", "OAuthClientCredentials", "Verifier", "scopes_of"]

_LAZY = {
    "IntrospectionVerifier": "toolweave.auth.introspection",
    "JWTVerifier": "toolweave.auth.jwt_verifier",
    "Bearer": "toolweave.auth.upstream",
    "OAuthClientCredentials": "toolweave.auth.upstream",
}
"""Imported on first use: PyJWT, `cryptography` and httpx cost a server that verifies nobody
(every stdio server) ~45 ms of its start."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolweave.auth' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
