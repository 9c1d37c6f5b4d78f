"""An upstream gets the gateway's own credentials — a bearer token or an OAuth client-credentials
token — and never the caller's token. Everything real: the issuer, the upstream toolweave HTTP
server (which reports the `Authorization` header it received), the gateway, the client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import jwt
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.auth.issuer import AUDIENCE, INTROSPECTION_CLIENT, ISSUER, Issuer
from tests.auth.test_http_auth import connected
from tests.serving import serving
from toolweave import Context, FromEnv, RemoteServer, Server, UpstreamError
from toolweave.auth import Bearer, JWTVerifier, OAuthClientCredentials
from toolweave.config import build
from toolweave.config.models import Config


def upstream() -> Server:
    server = Server("upstream")

    @server.tool
    def seen(ctx: Context) -> str:
        """The Authorization header this request arrived with."""
        return ctx.headers.get("authorization", "none")

    return server


@asynccontextmanager
async def gateway(issuer: Issuer, auth: Any) -> AsyncIterator[str]:
    async with serving(upstream().http_app()) as upstream_url:
        root = Server("gateway")
        root.mount(RemoteServer.http(upstream_url + "/mcp", auth=auth, name="up"), prefix="up")
        verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
        async with serving(root.http_app(auth=verifier, resource_url=AUDIENCE)) as url:
            yield url


async def seen_by_upstream(url: str, caller_token: str, calls: int = 1) -> list[str]:
    async with connected(url, caller_token, legacy=False) as client:
        return [(await client.call_tool("up_seen", {})).content[0].text for _ in range(calls)]


async def test_the_callers_token_is_never_passed_on(issuer: Issuer) -> None:
    caller = issuer.token(sub="ada")
    async with gateway(issuer, auth=None) as url:
        assert await seen_by_upstream(url, caller) == ["none"]


async def test_a_bearer_token_from_the_environment_is_read_at_every_request(
    issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = issuer.token(sub="ada")
    monkeypatch.setenv("UPSTREAM_TOKEN", "upstream-secret-1")
    async with gateway(issuer, auth=Bearer(FromEnv("UPSTREAM_TOKEN"))) as url:
        first = await seen_by_upstream(url, caller)
        monkeypatch.setenv("UPSTREAM_TOKEN", "upstream-secret-2")  # rotated, no restart
        second = await seen_by_upstream(url, caller)
    assert first[0] == "Bearer upstream-secret-1" and second[0] == "Bearer upstream-secret-2"
    assert caller not in first[0] + second[0]


async def test_client_credentials_fetch_one_token_and_share_it(issuer: Issuer) -> None:
    caller = issuer.token(sub="ada")
    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT, scopes=["mcp"])
    async with gateway(issuer, auth=credentials) as url:
        answers = await seen_by_upstream(url, caller, calls=3)
    tokens = {answer.removeprefix("Bearer ") for answer in answers}
    assert len(tokens) == 1 and caller not in tokens
    claims = jwt.decode(tokens.pop(), options={"verify_signature": False})
    assert (claims["sub"], claims["scope"]) == ("gateway", "mcp")
    assert credentials.fetches == 1


async def test_a_token_about_to_expire_is_renewed(issuer: Issuer) -> None:
    issuer.token_lifetime = 30  # shorter than `refresh_before`: every use renews it
    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT, refresh_before=60)
    async with httpx2.AsyncClient(auth=credentials) as http:
        for _ in range(2):
            await http.get(issuer.jwks_uri)
    assert credentials.fetches == 2


async def test_refused_client_credentials_name_the_endpoint_not_the_secret(issuer: Issuer) -> None:
    credentials = OAuthClientCredentials(issuer.token_url, "gateway", "wrong-s3cret")
    async with httpx2.AsyncClient(auth=credentials) as http:
        with pytest.raises(UpstreamError) as refused:
            await http.get(issuer.jwks_uri)
    message = str(refused.value)
    assert "refused the client credentials of 'gateway': invalid_client" in message
    assert issuer.token_url in message and "wrong-s3cret" not in message


async def test_a_config_entry_gives_an_upstream_its_credentials(
    issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UP_SECRET", INTROSPECTION_CLIENT[1])
    async with serving(upstream().http_app()) as upstream_url:
        config = {
            "mcpServers": {
                "up": {
                    "url": upstream_url + "/mcp",
                    "auth": {
                        "client_credentials": {
                            "token_url": issuer.token_url,
                            "client_id": "gateway",
                            "client_secret": "env:UP_SECRET",
                        }
                    },
                }
            }
        }
        composed = build(Config.model_validate(config))
        async with composed.running() as server:
            result = await server.call_tool("seen", {})
    assert result.content[0].text.startswith("Bearer ey")
    with pytest.raises(ValueError, match="give exactly one of bearer or client_credentials"):
        Config.model_validate({"mcpServers": {"up": {"url": "http://127.0.0.1:1/mcp", "auth": {}}}})


@pytest.mark.parametrize(
    ("bearer", "expected"), [("env:UP_TOKEN", "Bearer t-from-env"), ("literal-token", "Bearer literal-token")]
)
async def test_a_config_bearer_gives_an_upstream_its_token(
    bearer: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UP_TOKEN", "t-from-env")
    async with serving(upstream().http_app()) as upstream_url:
        config = {"mcpServers": {"up": {"url": upstream_url + "/mcp", "auth": {"bearer": bearer}}}}
        async with build(Config.model_validate(config)).running() as server:
            result = await server.call_tool("seen", {})
    assert result.content[0].text == expected


@pytest.mark.parametrize("refusals", [1, 10], ids=["revoked once", "always refused"])
async def test_a_401_from_the_upstream_renews_the_token_once_and_retries_once(issuer: Issuer, refusals: int) -> None:
    seen: list[str] = []

    async def resource(request: Request) -> PlainTextResponse:
        seen.append(request.headers.get("authorization", ""))
        return PlainTextResponse("no", status_code=401) if len(seen) <= refusals else PlainTextResponse("yes")

    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT)
    async with serving(Starlette(routes=[Route("/r", resource)])) as url, httpx2.AsyncClient(auth=credentials) as http:
        response = await http.get(url + "/r")
    assert response.status_code == (200 if refusals == 1 else 401)
    assert len(seen) == 2 and credentials.fetches == 2  # one fresh token, one retry, never a loop
    assert all(header.startswith("Bearer ey") for header in seen)
