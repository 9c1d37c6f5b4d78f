"""The HTTP edge from a client's side: what stays open, and what every 401 points to."""

from __future__ import annotations

import json

import httpx2
import pytest

from tests.auth.issuer import ISSUER, Issuer
from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from toolweave import Server
from toolweave.auth import JWTVerifier


async def test_an_endpoint_at_the_root_leaves_the_metadata_and_probes_open(issuer: Issuer) -> None:
    resource = "http://127.0.0.1/"
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=resource)
    app = Server("notes").http_app(path="/", auth=verifier, resource_url=resource)
    async with serving(app) as url, httpx2.AsyncClient() as http:
        refused = await http.post(url + "/", headers=RAW_HEADERS, content=json.dumps(RAW_INITIALIZE))
        metadata = await http.get(url + "/.well-known/oauth-protected-resource")
        health = await http.get(url + "/healthz")
        allowed = await http.post(
            url + "/",
            headers={**RAW_HEADERS, "authorization": f"Bearer {issuer.token(aud=resource)}"},
            content=json.dumps(RAW_INITIALIZE),
        )
    assert refused.status_code == 401
    assert 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' in (
        refused.headers["www-authenticate"]
    )
    assert (metadata.status_code, health.status_code, allowed.status_code) == (200, 200, 200)
    assert metadata.json()["resource"] == resource


async def test_a_refused_query_token_points_the_client_at_the_metadata(issuer: Issuer) -> None:
    resource = "http://127.0.0.1/mcp"
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=resource)
    app = Server("notes").http_app(auth=verifier, resource_url=resource)
    async with serving(app) as url, httpx2.AsyncClient() as http:
        response = await http.post(
            url + f"/mcp?access_token={issuer.token()}", headers=RAW_HEADERS, content=json.dumps(RAW_INITIALIZE)
        )
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_request"')
    assert 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"' in challenge


def test_a_verifier_that_checks_no_audience_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    resource = "http://127.0.0.1/mcp"
    Server("open").http_app(auth=JWTVerifier(jwks_uri="http://127.0.0.1:9/jwks", issuer=ISSUER), resource_url=resource)
    assert "checks no audience" in caplog.text and f"pass audience='{resource}'" in caplog.text
    caplog.clear()
    verifier = JWTVerifier(jwks_uri="http://127.0.0.1:9/jwks", issuer=ISSUER, audience=resource)
    Server("closed").http_app(auth=verifier, resource_url=resource)
    assert "checks no audience" not in caplog.text
