"""The HTTP edge from a client's side: what stays open, what every 401 points to, and that the
guards hold when the app is mounted inside another one."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from tests.auth.issuer import ISSUER, Issuer
from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from tests.store.conftest import redis, redis_server  # noqa: F401 - the fixtures
from tests.store.redis_server import RedisServer
from tests.store.test_resume_http import a_change_missed, events, next_change, replicas, session
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


async def test_mounted_inside_another_app_the_endpoint_still_needs_a_token(issuer: Issuer) -> None:
    resource = "http://127.0.0.1/mcp"
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=resource)
    body = json.dumps(RAW_INITIALIZE)
    app = mounted(Server("notes").http_app(auth=verifier, resource_url=resource))
    async with serving(app) as url, httpx2.AsyncClient() as http:
        refused = await http.post(url + "/tools/mcp", headers=RAW_HEADERS, content=body)
        token = {"authorization": f"Bearer {issuer.token()}"}
        allowed = await http.post(url + "/tools/mcp", headers={**RAW_HEADERS, **token}, content=body)
        health = await http.get(url + "/tools/healthz")
    assert refused.status_code == 401 and "invalid_token" in refused.headers["www-authenticate"]
    assert (allowed.status_code, health.status_code) == (200, 200)


def mounted(inner: Starlette) -> Starlette:
    """`inner` mounted at `/tools` inside another app (as in a FastAPI app), its lifespan run."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with inner.router.lifespan_context(inner):
            yield

    return Starlette(routes=[Mount("/tools", app=inner)], lifespan=lifespan)


async def test_mounted_inside_another_app_a_session_resumes_on_a_replica_that_never_held_it(
    redis: RedisServer,  # noqa: F811 - the fixture imported above
) -> None:
    first, second = replicas(redis)
    async with (
        serving(mounted(first.http_app())) as base,
        serving(mounted(second.http_app())) as other_base,
        httpx2.AsyncClient(timeout=10) as http,
    ):
        url, other_url = f"{base}/tools/mcp", f"{other_base}/tools/mcp"
        mine = await session(http, url)
        seen = await a_change_missed(http, url, mine, first)  # stored in Redis
        async with events(http, other_url, mine, last=seen) as stream:  # its replica is gone, say
            replayed = [json.loads(data)["method"] async for _, data in stream]
        stranger = await session(http, other_url)  # a session of its own, presenting another's event id
        async with events(http, other_url, stranger, last=seen) as stream:
            leaked = await next_change(stream, seconds=1)
    assert replayed[-3:] == [f"notifications/{kind}/list_changed" for kind in ("tools", "prompts", "resources")]
    assert leaked is None


async def test_behind_a_proxy_that_strips_a_prefix_the_endpoint_still_needs_a_token(issuer: Issuer) -> None:
    resource = "http://127.0.0.1/api/mcp"
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=resource)
    app = Server("notes").http_app(auth=verifier, resource_url=resource)
    body = json.dumps(RAW_INITIALIZE)
    async with serving(app, root_path="/api") as url, httpx2.AsyncClient() as http:  # uvicorn --root-path /api
        refused = await http.post(url + "/mcp", headers=RAW_HEADERS, content=body)
        token = {"authorization": f"Bearer {issuer.token(aud=resource)}"}
        allowed = await http.post(url + "/mcp", headers={**RAW_HEADERS, **token}, content=body)
    assert (refused.status_code, allowed.status_code) == (401, 200)


async def test_one_authorization_server_given_as_a_string_is_announced_whole(issuer: Issuer) -> None:
    resource = "http://127.0.0.1/mcp"
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, audience=resource)
    app = Server("notes").http_app(auth=verifier, resource_url=resource, authorization_servers=ISSUER)
    async with serving(app) as url, httpx2.AsyncClient() as http:
        metadata = (await http.get(url + "/.well-known/oauth-protected-resource/mcp")).json()
    assert metadata["authorization_servers"] == [ISSUER]


async def test_a_token_just_past_its_exp_is_refused_with_a_reason_in_the_log(
    issuer: Issuer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="toolweave.auth")
    resource = "http://127.0.0.1/mcp"
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=resource, leeway=30)
    stale = issuer.token(exp=int(time.time()) - 10)  # within the verifier's leeway
    app = Server("notes").http_app(auth=verifier, resource_url=resource)
    async with serving(app) as url, httpx2.AsyncClient() as http:
        token = {"authorization": f"Bearer {stale}"}
        answer = await http.post(url + "/mcp", headers={**RAW_HEADERS, **token}, content=json.dumps(RAW_INITIALIZE))
    assert answer.status_code == 401
    assert "bearer token refused: expired" in caplog.text


async def test_the_probes_never_ask_the_authenticate_hook() -> None:
    """Probes are cheap, open and anonymous: one carrying a header ran the hook (a crashing hook
    logged an error with an incident for every probe)."""
    asked: list[str] = []

    def authenticate(headers: object) -> None:
        asked.append("asked")
        raise RuntimeError("the identity service is down")

    app = Server("notes").http_app(authenticate=authenticate)
    async with serving(app) as url, httpx2.AsyncClient() as http:
        probes = [await http.get(url + path, headers={"authorization": "Bearer x"}) for path in ("/healthz", "/readyz")]
        assert not asked and [probe.status_code for probe in probes] == [200, 200]
        refused = await http.post(
            url + "/mcp", headers={**RAW_HEADERS, "authorization": "Bearer x"}, json=RAW_INITIALIZE
        )
    assert asked and refused.status_code == 500  # the endpoint still asks it, and names the incident
