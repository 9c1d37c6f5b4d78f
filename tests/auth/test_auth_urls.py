"""The URLs of the HTTP edge's auth, and its one way to authenticate, refused up front with the
option they belong to (never pydantic's bare "Input should be a valid URL", never a 503 forever)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from tests.auth.issuer import AUDIENCE, Issuer
from tests.serving import serving
from toolweave import AuthInfo, Server
from toolweave.auth import IntrospectionVerifier, JWTVerifier

JWKS = "https://idp.example.com/jwks.json"


def anyone(headers: Any) -> AuthInfo:
    return AuthInfo(subject="ada")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: JWTVerifier(jwks_uri="not a url"),
            "JWTVerifier jwks_uri= must start with http:// or https://, not 'not a url'",
        ),
        (
            lambda: JWTVerifier(jwks_uri="https://"),
            "JWTVerifier jwks_uri= is not a valid URL (empty host), not 'https://'",
        ),
        (
            lambda: IntrospectionVerifier("idp.example.com/introspect", client_id="c", client_secret="s"),
            "IntrospectionVerifier url= must start with http:// or https://, not 'idp.example.com/introspect'",
        ),
    ],
    ids=["jwks_uri without a scheme", "jwks_uri without a host", "introspection url"],
)
def test_a_verifier_refuses_an_endpoint_that_is_no_http_url(make: Any, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        make()
    assert str(refused.value) == message


def test_a_resource_url_without_a_scheme_is_refused_naming_the_option() -> None:
    verifier = JWTVerifier(jwks_uri=JWKS, issuer="https://idp.example.com/", audience=AUDIENCE)
    with pytest.raises(ValueError) as refused:
        Server("notes").http_app(auth=verifier, resource_url="mcp.example.com/mcp")
    assert str(refused.value) == "resource_url= must start with http:// or https://, not 'mcp.example.com/mcp'"


def test_an_authorization_server_that_is_no_url_is_refused_naming_the_option() -> None:
    verifier = JWTVerifier(jwks_uri=JWKS, issuer="my-idp", audience=AUDIENCE)
    with pytest.raises(ValueError) as refused:
        Server("notes").http_app(auth=verifier, authorization_servers=["my-idp"])
    assert str(refused.value) == "authorization_servers= must start with http:// or https://, not 'my-idp'"


def test_an_issuer_that_is_no_url_needs_authorization_servers_for_the_metadata() -> None:
    verifier = JWTVerifier(jwks_uri=JWKS, issuer="my-idp", audience=AUDIENCE)
    with pytest.raises(ValueError) as refused:
        Server("notes").http_app(auth=verifier)
    assert str(refused.value) == (
        "the verifier's issuer 'my-idp' is not an http(s) URL, so it cannot name the authorization server "
        "in the RFC 9728 metadata: pass authorization_servers= (the URLs clients get tokens from)"
    )


async def test_an_issuer_that_is_no_url_serves_with_the_authorization_servers_given(issuer: Issuer) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer="my-idp", audience=AUDIENCE)
    app = Server("notes").http_app(auth=verifier, authorization_servers="https://idp.example.com/")
    async with serving(app) as url, httpx2.AsyncClient() as http:
        metadata = (await http.get(url + "/.well-known/oauth-protected-resource/mcp")).json()
    assert (metadata["resource"], metadata["authorization_servers"]) == (AUDIENCE, ["https://idp.example.com/"])


def test_an_app_with_both_a_verifier_and_a_hook_is_refused_in_the_options_words() -> None:
    verifier = JWTVerifier(jwks_uri=JWKS, issuer="https://idp.example.com/", audience=AUDIENCE)
    with pytest.raises(ValueError) as refused:
        Server("notes").http_app(auth=verifier, authenticate=anyone)
    assert str(refused.value) == "give auth= (a token verifier) or authenticate= (a hook), not both"
