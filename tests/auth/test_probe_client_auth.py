"""toolweave authenticating as an OAuth client, against an authorization server that decodes
`client_secret_basic` as RFC 6749 §2.3.1 says (like the `mcp` SDK's): a client id or secret with
reserved characters gets through unchanged."""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import unquote

import httpx2
import jwt
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.auth.issuer import INTROSPECTION_CLIENT, Issuer
from tests.serving import serving
from toolweave import RemoteServer
from toolweave.auth import Bearer, IntrospectionVerifier, OAuthClientCredentials
from toolweave.core.errors import InvalidToken
from toolweave.transforms import FromClaim, FromContext, FromHeader

CLIENT = ("gate:way", "s3+cr/et=%41 ok")
"""A client id with a colon and a secret with every character the encoding changes."""


def client_of(request: Request) -> tuple[str, str] | None:
    """The client id and secret of a `client_secret_basic` request, decoded per RFC 6749 §2.3.1."""
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme != "Basic":
        return None
    client_id, _, secret = base64.b64decode(encoded).decode().partition(":")
    return unquote(client_id), unquote(secret)


@asynccontextmanager
async def authorization_server() -> AsyncIterator[str]:
    async def introspect(request: Request) -> JSONResponse:
        if client_of(request) != CLIENT:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse({"active": True, "sub": "ada", "exp": int(time.time()) + 60})

    async def token(request: Request) -> JSONResponse:
        if client_of(request) != CLIENT:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse({"access_token": "gateway-token", "token_type": "Bearer", "expires_in": 600})

    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"authorization": request.headers.get("authorization")})

    routes = [
        Route("/introspect", introspect, methods=["POST"]),
        Route("/token", token, methods=["POST"]),
        Route("/echo", echo),
    ]
    async with serving(Starlette(routes=routes)) as url:
        yield url


async def test_introspection_authenticates_with_a_secret_holding_reserved_characters() -> None:
    async with authorization_server() as url:
        verifier = IntrospectionVerifier(url + "/introspect", client_id=CLIENT[0], client_secret=CLIENT[1])
        assert (await verifier.verify("opaque")).subject == "ada"
        await verifier.aclose()


async def test_client_credentials_authenticate_with_a_secret_holding_reserved_characters() -> None:
    async with authorization_server() as url:
        credentials = OAuthClientCredentials(url + "/token", *CLIENT)
        async with httpx2.AsyncClient(auth=credentials) as http:
            seen = (await http.get(url + "/echo")).json()
    assert seen == {"authorization": "Bearer gateway-token"}


async def test_refused_client_credentials_are_logged_with_the_status(caplog: pytest.LogCaptureFixture) -> None:
    async with authorization_server() as url:
        verifier = IntrospectionVerifier(url + "/introspect", client_id=CLIENT[0], client_secret="wrong")
        with pytest.raises(InvalidToken, match="could not be asked"):
            await verifier.verify("opaque")
        await verifier.aclose()
    assert "failed: HTTP 401" in caplog.text and "wrong" not in caplog.text


async def test_client_credentials_ask_for_scopes_given_as_one_string(issuer: Issuer) -> None:
    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT, scopes="mcp notes")
    async with httpx2.AsyncClient(auth=credentials) as http:
        sent = (await http.get(issuer.jwks_uri)).request.headers["authorization"].removeprefix("Bearer ")
    assert jwt.decode(sent, options={"verify_signature": False})["scope"] == "mcp notes"  # what it asked for


@pytest.mark.parametrize("kind", ["http", "sse"])
def test_a_token_string_as_an_upstreams_auth_is_refused_at_once_without_its_value(kind: str) -> None:
    with pytest.raises(TypeError, match=r"auth=toolweave\.auth\.Bearer\(token\)") as refused:
        getattr(RemoteServer, kind)("https://mcp.example.com/mcp", auth="ghp_s3cr3t")
    assert "s3cr3t" not in str(refused.value)


@pytest.mark.parametrize("source", [FromClaim("gh_token"), FromHeader("authorization"), FromContext("auth.token")])
def test_a_bearer_read_from_the_request_is_refused_at_once_pointing_at_forwarding(source: Any) -> None:
    """The gateway's credential is read outside any request (its session connects and lists for
    every caller): such a source had no value there, and the upstream never connected, with only
    "is not available" in the log to say why."""
    with pytest.raises(TypeError, match="forward_caller_token=True"):
        Bearer(source)
    with pytest.raises(TypeError, match="forward_caller_token=True"):
        OAuthClientCredentials("https://auth.example.com/token", "gateway", source)
