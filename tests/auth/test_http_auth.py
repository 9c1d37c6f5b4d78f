"""Verified callers over real HTTP: 401/403 answers, RFC 9728 metadata, both protocol eras."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer, SigningKey, hs256_with_public_key, unsigned
from tests.serving import RAW_HEADERS as MCP_HEADERS
from tests.serving import RAW_INITIALIZE as INITIALIZE
from tests.serving import serving
from toolweave import AuthInfo, Context, Server, Tool
from toolweave.auth import JWTVerifier
from toolweave.auth.jwt_verifier import RETRY_WITHOUT_KEYS
from toolweave.transforms import FromClaim, InjectArgs


def notes_server() -> Server:
    server = Server("notes")

    @server.tool
    def whoami(ctx: Context) -> dict[str, Any]:
        """Who is calling."""
        assert ctx.auth is not None
        return {"subject": ctx.auth.subject, "scopes": list(ctx.auth.scopes)}

    async def my_notes(user: str) -> str:
        """The caller's notes."""
        return f"notes of {user}"

    server.add_tool(Tool.from_function(my_notes).with_transforms(InjectArgs(user=FromClaim("sub"))))
    return server


@asynccontextmanager
async def protected(issuer: Issuer, **options: Any) -> AsyncIterator[str]:
    verifier = JWTVerifier(
        jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, required_scopes=options.pop("scopes", ["tools"])
    )
    app = notes_server().http_app(auth=verifier, resource_url=AUDIENCE, **options)
    async with serving(app) as url:
        yield url


async def _post(url: str, headers: dict[str, str], *, path: str = "/mcp") -> httpx2.Response:
    async with httpx2.AsyncClient() as http:
        return await http.post(url + path, headers={**MCP_HEADERS, **headers}, content=json.dumps(INITIALIZE))


REFUSED: dict[str, Callable[[Issuer], dict[str, str]]] = {
    "no token": lambda i: {},
    "malformed header": lambda i: {"authorization": "Bearer"},
    "basic scheme": lambda i: {"authorization": "Basic YWRhOnB3"},
    "expired": lambda i: {"authorization": f"Bearer {i.token(exp=int(time.time()) - 120)}"},
    "nbf in the future": lambda i: {"authorization": f"Bearer {i.token(nbf=int(time.time()) + 600)}"},
    "wrong iss": lambda i: {"authorization": f"Bearer {i.token(iss='https://evil.test/')}"},
    "wrong aud": lambda i: {"authorization": f"Bearer {i.token(aud='https://other.test/mcp')}"},
    "alg none": lambda i: {"authorization": f"Bearer {unsigned(i.claims(), {'alg': 'none', 'kid': i.keys[0].kid})}"},
    "HS256 signed with the public key": lambda i: {"authorization": f"Bearer {hs256_with_public_key(i)}"},
    "unknown kid": lambda i: {"authorization": f"Bearer {i.token(SigningKey.rsa())}"},
    "tampered payload": lambda i: {
        "authorization": "Bearer "
        + ".".join([i.token().split(".")[0], i.token(sub="root").split(".")[1], i.token().split(".")[2]])
    },
    "tampered signature": lambda i: {"authorization": f"Bearer {i.token()[:-3]}AAA"},
}


@pytest.mark.parametrize("headers", REFUSED.values(), ids=REFUSED.keys())
async def test_refused_requests_get_401_with_only_the_error_code(issuer: Issuer, headers: Callable[..., Any]) -> None:
    async with protected(issuer) as url:
        response = await _post(url, headers(issuer))
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge
        assert 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"' in challenge
        body = response.json()
        assert body["error"] == "invalid_token" and "Signature" not in json.dumps(body)
        good = await _post(url, {"authorization": f"Bearer {issuer.token()}"})
        assert good.status_code == 200  # the server keeps serving


async def test_with_anonymous_callers_allowed_a_bad_token_is_still_refused(issuer: Issuer) -> None:
    async with protected(issuer, allow_anonymous=True, scopes=["tools"]) as url:
        anonymous = await _post(url, {})
        expired = await _post(url, REFUSED["expired"](issuer))
        forged = await _post(url, REFUSED["tampered signature"](issuer))
        unscoped = await _post(url, {"authorization": f"Bearer {issuer.token(scope='notes')}"})
        good = await _post(url, {"authorization": f"Bearer {issuer.token()}"})
    assert anonymous.status_code == good.status_code == 200
    assert expired.status_code == forged.status_code == 401  # told to get a new token, not served as nobody
    assert 'error="invalid_token"' in expired.headers["www-authenticate"]
    assert unscoped.status_code == 403


async def test_a_token_in_the_query_string_is_refused(issuer: Issuer) -> None:
    async with protected(issuer) as url:
        response = await _post(url, {}, path=f"/mcp?access_token={issuer.token()}")
        header_too = await _post(
            url, {"authorization": f"Bearer {issuer.token()}"}, path=f"/mcp?access_token={issuer.token()}"
        )
        after = await _post(url, {"authorization": f"Bearer {issuer.token()}"})
    assert response.status_code == header_too.status_code == 401
    assert after.status_code == 200  # the server keeps serving


async def test_a_token_without_the_required_scope_gets_403(issuer: Issuer) -> None:
    async with protected(issuer, scopes=["tools", "admin"]) as url:
        response = await _post(url, {"authorization": f"Bearer {issuer.token()}"})
        after = await _post(url, {"authorization": f"Bearer {issuer.token(scope='tools admin')}"})
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert after.status_code == 200  # the server keeps serving


async def test_protected_resource_metadata_is_served_without_a_token(issuer: Issuer) -> None:
    async with protected(issuer) as url, httpx2.AsyncClient() as http:
        metadata = (await http.get(url + "/.well-known/oauth-protected-resource/mcp")).json()
    assert metadata["resource"] == AUDIENCE
    assert metadata["authorization_servers"] == [ISSUER]
    assert metadata["scopes_supported"] == ["tools"]


async def test_the_resource_url_defaults_to_the_verifiers_audience(issuer: Issuer) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
    async with serving(notes_server().http_app(auth=verifier)) as url, httpx2.AsyncClient() as http:
        refused = await _post(url, {})
        metadata = (await http.get(url + "/.well-known/oauth-protected-resource/mcp")).json()
    assert (
        'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"'
        in (refused.headers["www-authenticate"])
    )
    assert (metadata["resource"], metadata["authorization_servers"]) == (AUDIENCE, [ISSUER])


@pytest.mark.parametrize(
    "written", ["https://mcp.example.com", "https://MCP.example.com/mcp", "https://mcp.example.com:443/mcp/"]
)
async def test_a_token_for_the_advertised_resource_is_accepted_however_the_url_was_written(
    issuer: Issuer, written: str
) -> None:
    """The metadata advertises the URL normalised; a client asks its issuer for a token for that."""
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=written)
    async with serving(notes_server().http_app(auth=verifier)) as url, httpx2.AsyncClient() as http:
        challenge = (await _post(url, {})).headers["www-authenticate"]
        metadata = httpx2.URL(challenge.split('resource_metadata="')[1].split('"')[0])
        advertised = (await http.get(url + metadata.raw_path.decode())).json()["resource"]
        accepted = await _post(url, {"authorization": f"Bearer {issuer.token(aud=advertised)}"})
        other = await _post(url, {"authorization": f"Bearer {issuer.token(aud=advertised + 'x')}"})
    assert advertised != written and (accepted.status_code, other.status_code) == (200, 401)


def test_without_a_resource_url_the_missing_metadata_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    verifier = JWTVerifier(public_key=SigningKey.rsa().public_pem(), issuer=ISSUER)  # no audience to go by
    app = notes_server().http_app(auth=verifier)
    assert not any("oauth-protected-resource" in getattr(route, "path", "") for route in app.routes)
    assert "no RFC 9728 metadata is served" in caplog.text and "pass resource_url=" in caplog.text


@asynccontextmanager
async def connected(url: str, token: str, *, legacy: bool) -> AsyncIterator[Any]:
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}) as http:
        transport = streamable_http_client(url + "/mcp", http_client=http)
        if legacy:
            async with transport as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                yield session
        else:
            async with Client(transport) as client:
                yield client


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025"])
async def test_the_verified_caller_is_ctx_auth_in_both_eras(issuer: Issuer, legacy: bool) -> None:
    async with protected(issuer) as url, connected(url, issuer.token(sub="grace"), legacy=legacy) as client:
        whoami = await client.call_tool("whoami", {})
        notes = await client.call_tool("my_notes", {})
        spoofed = await client.call_tool("my_notes", {"user": "ada"})
    assert whoami.structured_content == {"subject": "grace", "scopes": ["tools", "notes"]}
    assert notes.content[0].text == "notes of grace"  # FromClaim: the verified claim, nothing else
    assert spoofed.is_error and "notes of ada" not in str(spoofed.content)


async def test_a_token_that_cannot_be_checked_while_the_issuer_is_down_gets_503_not_401(issuer: Issuer) -> None:
    """A 401 tells a client to get another token; an identity provider that is down is a retry."""
    issuer.jwks_up = False
    async with protected(issuer) as url, httpx2.AsyncClient() as http:
        token = {"authorization": f"Bearer {issuer.token()}"}
        unchecked = await _post(url, token)
        health = await http.get(url + "/healthz", headers=token)  # open routes serve it unauthenticated
        issuer.jwks_up = True
        await anyio.sleep(RETRY_WITHOUT_KEYS + 0.1)
        checked = await _post(url, token)
    assert (unchecked.status_code, health.status_code, checked.status_code) == (503, 200, 200)
    assert unchecked.headers["retry-after"] == "1"
    assert unchecked.json()["error"] == "temporarily_unavailable"


@pytest.mark.parametrize("client_claim", ["client_id", "azp"])
async def test_a_token_without_sub_has_no_subject_whatever_its_client_is_called(
    issuer: Issuer, client_claim: str
) -> None:
    """A client-credentials token for a client named "ada" is not user ada."""
    token = issuer.token(sub=None, **{client_claim: "ada"})
    async with protected(issuer) as url, connected(url, token, legacy=False) as client:
        whoami = await client.call_tool("whoami", {})
        notes = await client.call_tool("my_notes", {})
    assert whoami.structured_content == {"subject": None, "scopes": ["tools", "notes"]}
    assert notes.is_error and "notes of ada" not in str(notes.content)


async def test_a_forged_sub_never_reaches_from_claim(issuer: Issuer) -> None:
    forged = issuer.token(SigningKey("RS256", SigningKey.rsa().private, issuer.keys[0].kid), sub="admin")
    call = {**_MODERN_CALL, "params": {**_MODERN_CALL["params"], "name": "my_notes"}}

    async def my_notes(url: str, token: str) -> httpx2.Response:
        async with httpx2.AsyncClient() as http:
            headers = {**MCP_HEADERS, **_MODERN_HEADERS, "mcp-name": "my_notes", "authorization": f"Bearer {token}"}
            return await http.post(url + "/mcp", headers=headers, content=json.dumps(call))

    async with protected(issuer) as url:
        refused = await my_notes(url, forged)
        served = await my_notes(url, issuer.token(sub="grace"))
    assert refused.status_code == 401 and "notes of" not in refused.text
    assert served.status_code == 200 and "notes of grace" in served.text  # the verified claim, and only it


_MODERN_HEADERS = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call"}
_MODERN_CALL: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {
        "name": "whoami",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    },
}


async def test_the_authenticate_hook_never_reads_a_repeated_header() -> None:
    def authenticate(headers: Any) -> AuthInfo | None:
        return AuthInfo(subject="ops") if headers.get("x-api-key") == "k-123" else None

    async def post(url: str, values: list[str]) -> int:
        async with httpx2.AsyncClient() as http:
            headers = [*MCP_HEADERS.items(), *(("x-api-key", value) for value in values)]
            response = await http.post(url + "/mcp", headers=headers, content=json.dumps(INITIALIZE))
            return response.status_code

    async with serving(notes_server().http_app(authenticate=authenticate)) as url:
        codes = [await post(url, ["nope", "k-123"]), await post(url, ["k-123", "nope"]), await post(url, ["k-123"])]
    assert codes == [401, 401, 200]  # neither copy of a repeated header is believed


async def test_the_authenticate_hook_gets_the_same_401_path() -> None:
    def authenticate(headers: Any) -> AuthInfo | None:
        return AuthInfo(subject="ops") if headers.get("x-api-key") == "k-123" else None

    async with serving(notes_server().http_app(authenticate=authenticate)) as url:
        anonymous = await _post(url, {})
        wrong = await _post(url, {"x-api-key": "nope"})
        right = await _post(url, {"x-api-key": "k-123"})
    assert (anonymous.status_code, wrong.status_code, right.status_code) == (401, 401, 200)


@pytest.mark.parametrize(
    "failure",
    [
        RuntimeError("idp https://idp.test/?client_secret=s3cr3t unreachable"),
        SystemExit("s3cr3t"),  # e.g. a hook parsing a header with argparse
        KeyboardInterrupt("s3cr3t"),
        BaseExceptionGroup("s3cr3t", [SystemExit(2)]),
    ],
    ids=["error", "exit", "interrupt", "group"],
)
async def test_a_crashing_hook_lets_nobody_in_and_the_answer_names_the_incident(
    failure: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    def authenticate(headers: Any) -> AuthInfo | None:
        if headers.get("x-api-key") == "k-123":
            return AuthInfo(subject="ops")
        raise failure

    async with serving(notes_server().http_app(authenticate=authenticate)) as url:
        response = await _post(url, {"authorization": "Bearer whatever"})
        after = await _post(url, {"x-api-key": "k-123"})
    assert (response.status_code, after.status_code) == (500, 200)  # refused, and still serving
    assert "s3cr3t" not in response.text
    answer = response.json()
    assert answer["error"] == "server_error"
    incident = answer["error_description"].rpartition("incident ")[2].rstrip(")")
    assert f"the authenticate hook failed (incident {incident})" in caplog.text  # the log line the answer names


async def test_allow_anonymous_serves_unrecognised_callers_without_auth() -> None:
    def authenticate(headers: Any) -> AuthInfo | None:
        return None

    server = Server("open")

    @server.tool
    def who(ctx: Context) -> str:
        return "anonymous" if ctx.auth is None else "someone"

    async with (
        serving(server.http_app(authenticate=authenticate, allow_anonymous=True)) as url,
        Client(url + "/mcp") as client,
    ):
        result = await client.call_tool("who", {})
    assert result.content[0].text == "anonymous"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_fastmcp_client_calls_with_a_bearer_token(
    issuer: Issuer, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    from fastmcp import Client as FastMCPClient

    caplog.set_level("INFO", logger="toolweave.auth")
    async with protected(issuer) as url:
        async with FastMCPClient(url + "/mcp", auth=issuer.token(sub="linus"), mode=mode) as client:
            result = await client.call_tool("whoami", {})
        assert "refused" not in caplog.text
        with pytest.raises(Exception):  # noqa: B017 - fastmcp reports the 401 as a generic error
            async with FastMCPClient(url + "/mcp", auth=issuer.token(aud="https://other.test/"), mode=mode) as client:
                await client.list_tools()
    assert result.structured_content == {"subject": "linus", "scopes": ["tools", "notes"]}
    assert "bearer token refused: InvalidAudienceError" in caplog.text


async def test_an_authorization_header_sent_twice_is_refused(issuer: Issuer) -> None:
    good, forged = issuer.token(sub="ada"), issuer.token(sub="admin", aud="https://other.test/")
    async with protected(issuer) as url, httpx2.AsyncClient() as http:
        headers = [*MCP_HEADERS.items(), ("authorization", f"Bearer {forged}"), ("authorization", f"Bearer {good}")]
        response = await http.post(url + "/mcp", headers=headers, content=json.dumps(INITIALIZE))
    assert response.status_code == 401
    assert "more than once" in response.json()["error_description"]
