"""How toolweave authenticates as an OAuth client (`client_secret_basic`, RFC 6749 §2.3.1).

The client id and secret are form-encoded before they are joined and base64-encoded, as the RFC
requires and authorization servers built on it decode (the `mcp` SDK's own among them): a secret
holding `+`, `/`, `=`, `:` or `%` — common in generated secrets — otherwise reaches the server
changed, and every request is refused as `invalid_client`.

Example:
    >>> import base64
    >>> auth = basic_client_auth("gateway", "a+b/c=")
    >>> header = next(auth.auth_flow(httpx2.Request("POST", "https://auth.example.com/token"))).headers
    >>> base64.b64decode(header["authorization"].removeprefix("Basic ")).decode()
    'gateway:a%2Bb%2Fc%3D'
"""

from __future__ import annotations

from urllib.parse import quote

import httpx2


def basic_client_auth(client_id: str, client_secret: str) -> httpx2.BasicAuth:
    """HTTP Basic credentials for `client_id` and `client_secret`, each form-encoded first."""
    return httpx2.BasicAuth(quote(client_id, safe=""), quote(client_secret, safe=""))
