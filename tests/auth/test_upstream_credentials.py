"""An upstream gets the gateway's own credentials — a bearer token or an OAuth client-credentials
token — and never the caller's token; and the gateway's credential never comes back, to the caller
or into a log. Everything real: the issuer, the upstream toolweave HTTP server (which notes the
`Authorization` header of every request it gets, and whose tools and prompt hand it back, as a
careless upstream would), the gateway, the client."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
import pytest
import yaml
from mcp import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.acceptance.cli_helpers import run_cli
from tests.auth.issuer import AUDIENCE, INTROSPECTION_CLIENT, ISSUER, Issuer
from tests.auth.test_http_auth import connected
from tests.conftest import subprocess_env
from tests.server.conftest import UPSTREAMS
from tests.serving import served, serving
from toolweave import Context, FromEnv, RemoteServer, Server, ToolError, UpstreamFailed
from toolweave.auth import Bearer, JWTVerifier, OAuthClientCredentials
from toolweave.auth.upstream import renew_after
from toolweave.config import build, build_file
from toolweave.config.models import Config

UPSTREAM_TOKEN = "ghp_upstream-secret-1"


def upstream(seen: list[str]) -> ASGIApp:
    """The upstream's HTTP app; `seen` gets the `Authorization` header of each request (none: nothing)."""
    server = Server("upstream")

    def sent(ctx: Context) -> str:
        return ctx.headers.get("authorization", "none")

    @server.tool
    def echo_auth(ctx: Context) -> str:
        """What this request arrived with, in a result."""
        return f"you sent: {sent(ctx)}"

    @server.tool
    def fail_auth(ctx: Context) -> str:
        """What this request arrived with, in a tool error."""
        raise ToolError(f"bad credential {sent(ctx)}")

    @server.tool
    def report_auth(ctx: Context) -> dict[str, str]:
        """What this request arrived with, in structured content."""
        return {"authorization": sent(ctx)}

    @server.prompt
    def auth_prompt(ctx: Context) -> str:
        """What this request arrived with, in a JSON-RPC error."""
        raise ToolError(f"bad credential {sent(ctx)}")

    app = server.http_app()

    async def noting(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            seen.extend(value.decode() for name, value in scope["headers"] if name == b"authorization")
        await app(scope, receive, send)

    return noting


@asynccontextmanager
async def gateway(
    issuer: Issuer, auth: Any, headers: dict[str, str] | None = None
) -> AsyncIterator[tuple[str, list[str]]]:
    """The gateway's URL (the upstream mounted as `up`, with `auth` and `headers`), and what the upstream saw."""
    seen: list[str] = []
    async with serving(upstream(seen)) as upstream_url:
        root = Server("gateway")
        root.mount(RemoteServer.http(upstream_url + "/mcp", auth=auth, headers=headers, name="up"), prefix="up")
        verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
        async with serving(root.http_app(auth=verifier, resource_url=AUDIENCE)) as url:
            yield url, seen


async def call_all(url: str, caller_token: str, *tools: str) -> list[Any]:
    async with connected(url, caller_token, legacy=False) as client:
        return [await client.call_tool(tool, {}) for tool in tools]


CREDENTIALS: dict[str, Callable[[Issuer], Any]] = {
    "bearer from env": lambda issuer: Bearer(FromEnv("UPSTREAM_TOKEN")),
    "bearer": lambda issuer: Bearer(UPSTREAM_TOKEN),
    "client credentials": lambda issuer: OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT),
}


@pytest.fixture(params=list(CREDENTIALS))
def credentials(request: pytest.FixtureRequest, issuer: Issuer, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each kind of credential the gateway presents upstream."""
    monkeypatch.setenv("UPSTREAM_TOKEN", UPSTREAM_TOKEN)
    return CREDENTIALS[request.param](issuer)


def sent_token(seen: list[str]) -> str:
    """The one token the upstream was sent."""
    tokens = {header.removeprefix("Bearer ") for header in seen}
    assert len(tokens) == 1, tokens
    return tokens.pop()


# -- what the upstream gets ----------------------------------------------------------------------


async def test_the_callers_token_is_never_passed_on(issuer: Issuer) -> None:
    async with gateway(issuer, auth=None) as (url, seen):
        await call_all(url, issuer.token(sub="ada"), "up_echo_auth")
    assert seen == []


async def test_a_bearer_token_from_the_environment_is_read_at_every_request(
    issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = issuer.token(sub="ada")
    monkeypatch.setenv("UPSTREAM_TOKEN", "upstream-secret-1")
    async with gateway(issuer, auth=Bearer(FromEnv("UPSTREAM_TOKEN"))) as (url, seen):
        await call_all(url, caller, "up_echo_auth")
        first = set(seen)
        monkeypatch.setenv("UPSTREAM_TOKEN", "upstream-secret-2")  # rotated, no restart
        await call_all(url, caller, "up_echo_auth")
    assert first == {"Bearer upstream-secret-1"} and seen[-1] == "Bearer upstream-secret-2"
    assert not any(caller in header for header in seen)


async def test_client_credentials_fetch_one_token_and_share_it(issuer: Issuer) -> None:
    caller = issuer.token(sub="ada")
    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT, scopes=["mcp"])
    async with gateway(issuer, auth=credentials) as (url, seen):
        await call_all(url, caller, "up_echo_auth", "up_echo_auth", "up_echo_auth")
    token = sent_token(seen)
    claims = jwt.decode(token, options={"verify_signature": False})
    assert (claims["sub"], claims["scope"]) == ("gateway", "mcp") and token != caller
    assert credentials.fetches == 1


async def test_client_credentials_ask_for_a_token_for_the_upstream_named_as_rfc_8707_says(issuer: Issuer) -> None:
    """An authorization server that issues tokens per resource reads `resource` (RFC 8707), not
    `audience`: the documentation said one option did both, and only `audience` was sent."""
    credentials = OAuthClientCredentials(
        issuer.token_url, *INTROSPECTION_CLIENT, resource="https://upstream.test/mcp", audience="auth0-api"
    )
    async with gateway(issuer, auth=credentials) as (url, seen):
        await call_all(url, issuer.token(sub="ada"), "up_echo_auth")
    assert jwt.decode(sent_token(seen), options={"verify_signature": False})["aud"] == "https://upstream.test/mcp"


# -- the gateway's credential does not come back -------------------------------------------------


async def test_the_gateways_credential_never_reaches_the_caller(issuer: Issuer, credentials: Any) -> None:
    """Whether the upstream hands it back in a result, a tool error or structured content."""
    async with gateway(issuer, auth=credentials) as (url, seen):
        results = await call_all(url, issuer.token(), "up_echo_auth", "up_fail_auth", "up_report_auth")
    received = json.dumps([result.model_dump(mode="json") for result in results])
    assert sent_token(seen) not in received
    assert [result.is_error for result in results] == [False, True, False]
    assert received.count("Bearer [redacted]") == 4  # the text of each, and the structured content


async def test_a_credential_in_the_mounts_own_headers_never_reaches_the_caller(issuer: Issuer) -> None:
    """As `mcpServers` entries write it: `headers: {Authorization: "Bearer ${TOKEN}"}`."""
    headers = {"Authorization": f"Bearer {UPSTREAM_TOKEN}"}
    async with gateway(issuer, auth=None, headers=headers) as (url, seen):
        results = await call_all(url, issuer.token(), "up_echo_auth", "up_fail_auth", "up_report_auth")
    received = json.dumps([result.model_dump(mode="json") for result in results])
    assert sent_token(seen) == UPSTREAM_TOKEN and UPSTREAM_TOKEN not in received
    assert received.count("Bearer [redacted]") == 4


async def test_a_credential_in_a_stdio_upstreams_environment_never_reaches_the_caller() -> None:
    secret = "stdio-upstream-key-42"
    env = {**subprocess_env(), "UPSTREAM_API_KEY": secret, "UPSTREAM_MODE": "plain-value-42"}
    root = Server("gateway")
    root.mount(RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "tw_upstream.py")], env=env), prefix="up")
    async with root:
        echoed = await root.call_tool("up_echo", {"text": f"key {secret}, mode plain-value-42"})
    assert echoed.structured_content == {"echo": "key [redacted], mode plain-value-42"}


def test_an_upstreams_credentials_are_what_their_names_or_references_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a config sends upstream and the gateway keeps from coming back; not a `${PYTHON}`."""
    for name, value in {"CUSTOM_TOKEN": "custom-token-1", "REGION_NAME": "eu-central-1", "PY": "/usr/bin/py3"}.items():
        monkeypatch.setenv(name, value)
    web = {
        "url": "https://u:pw-in-url-1@h/mcp",
        "headers": {"X-Custom": "${CUSTOM_TOKEN}", "X-Region": "${REGION_NAME}", "Authorization": "Bearer literal-1"},
    }
    local = {"command": "${PY}", "args": ["up.py"], "env": {"API_KEY": "env-key-value-1", "MODE": "fast-mode-1"}}
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {"web": web, "local": local}}))
    http, stdio = build_file(config).remotes
    assert sorted(http.target.credentials()) == ["custom-token-1", "literal-1", "pw-in-url-1"]
    assert stdio.target.credentials() == ["env-key-value-1"]


async def test_an_upstream_error_quoting_the_gateways_credential_is_logged_without_it(
    issuer: Issuer, credentials: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The upstream's JSON-RPC error is scrubbed before the SDK's session reads it: the failure
    the gateway logs (and its spans) never hold the credential; the client gets an incident id.
    (The SDK's DEBUG lines are hidden by the CLI's log filter: see the CLI test.)"""
    caplog.set_level(logging.INFO)
    async with gateway(issuer, auth=credentials) as (url, seen), connected(url, issuer.token(), legacy=False) as client:
        with pytest.raises(MCPError) as failed:
            await client.get_prompt("up_auth_prompt", {})
    assert "incident" in failed.value.error.message
    assert "(JSON-RPC -32603): bad credential Bearer [redacted]" in caplog.text
    assert sent_token(seen) not in caplog.text


@pytest.mark.parametrize(
    "auth",
    [
        {"bearer": "env:UP_TOKEN"},
        {"client_credentials": {"token_url": "TOKEN_URL", "client_id": "gateway", "client_secret": "env:UP_SECRET"}},
    ],
    ids=["bearer from env", "client credentials"],
)
def test_the_cli_logs_no_upstream_credential_at_debug(issuer: Issuer, tmp_path: Path, auth: dict[str, Any]) -> None:
    """The SDK logs each message an upstream sends at DEBUG: one that quotes the gateway's
    credential is written with `***` in its place."""
    seen: list[str] = []
    auth = json.loads(json.dumps(auth).replace("TOKEN_URL", issuer.token_url))
    with served(upstream(seen)) as upstream_url:
        config = tmp_path / "gateway.yaml"
        config.write_text(yaml.safe_dump({"mcpServers": {"up": {"url": upstream_url + "/mcp", "auth": auth}}}))
        done = run_cli(
            "call", str(config), "echo_auth", "--log-level", "debug",
            env={"UP_TOKEN": UPSTREAM_TOKEN, "UP_SECRET": INTROSPECTION_CLIENT[1]},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "SSE message" in done.stderr and "you sent: Bearer ***" in done.stderr
    assert sent_token(seen) not in done.stderr


# -- OAuth client credentials ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lifetime", "refresh_before", "renewed_after"),
    [(3600, 60, 3540), (90, 60, 45), (30, 60, 15), (0, 60, 1)],
    ids=["long-lived: refresh_before ahead", "margin at most half", "shorter than refresh_before", "no lifetime"],
)
def test_a_token_is_renewed_refresh_before_ahead_but_serves_half_its_life_at_least(
    lifetime: float, refresh_before: float, renewed_after: float
) -> None:
    assert renew_after(lifetime, refresh_before) == renewed_after


async def test_a_token_shorter_lived_than_refresh_before_is_shared_not_fetched_per_request(issuer: Issuer) -> None:
    issuer.token_lifetime = 30  # shorter than `refresh_before`
    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT, refresh_before=60)
    async with httpx2.AsyncClient(auth=credentials) as http:
        for _ in range(5):
            await http.get(issuer.jwks_uri)
    assert credentials.fetches == 1


async def test_a_short_lived_token_is_renewed_once_half_its_life_is_over(issuer: Issuer) -> None:
    issuer.token_lifetime = 2
    credentials = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT)
    async with httpx2.AsyncClient(auth=credentials) as http:
        await http.get(issuer.jwks_uri)
        await http.get(issuer.jwks_uri)
        shared = credentials.fetches
        await anyio.sleep(1.1)
        await http.get(issuer.jwks_uri)
    assert (shared, credentials.fetches) == (1, 2)


async def test_refused_client_credentials_name_the_endpoint_not_the_secret(issuer: Issuer) -> None:
    credentials = OAuthClientCredentials(issuer.token_url, "gateway", "wrong-s3cret")
    async with httpx2.AsyncClient(auth=credentials) as http:
        with pytest.raises(UpstreamFailed) as refused:
            await http.get(issuer.jwks_uri)
    message = str(refused.value)
    assert "refused the client credentials of 'gateway': invalid_client" in message
    assert issuer.token_url in message and "wrong-s3cret" not in message


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


# -- from a config file ----------------------------------------------------------------------------


async def test_a_config_entry_gives_an_upstream_its_credentials(
    issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UP_SECRET", INTROSPECTION_CLIENT[1])
    seen: list[str] = []
    async with serving(upstream(seen)) as upstream_url:
        config = {
            "mcpServers": {
                "up": {
                    "url": upstream_url + "/mcp",
                    "auth": {
                        "client_credentials": {
                            "token_url": issuer.token_url,
                            "client_id": "gateway",
                            "client_secret": "env:UP_SECRET",
                            "resource": upstream_url + "/mcp",
                        }
                    },
                }
            }
        }
        async with build(Config.model_validate(config)).running() as server:
            await server.call_tool("echo_auth", {})
    claims = jwt.decode(sent_token(seen), options={"verify_signature": False})
    assert (claims["sub"], claims["aud"]) == ("gateway", upstream_url + "/mcp")
    with pytest.raises(ValueError, match="give exactly one of bearer or client_credentials"):
        Config.model_validate({"mcpServers": {"up": {"url": "http://127.0.0.1:1/mcp", "auth": {}}}})


@pytest.mark.parametrize(("bearer", "expected"), [("env:UP_TOKEN", "t-from-env"), ("literal-token", "literal-token")])
async def test_a_config_bearer_gives_an_upstream_its_token(
    bearer: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UP_TOKEN", "t-from-env")
    seen: list[str] = []
    async with serving(upstream(seen)) as upstream_url:
        config = {"mcpServers": {"up": {"url": upstream_url + "/mcp", "auth": {"bearer": bearer}}}}
        async with build(Config.model_validate(config)).running() as server:
            await server.call_tool("echo_auth", {})
    assert sent_token(seen) == expected
