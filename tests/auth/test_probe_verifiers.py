"""Verifiers (and the gateway's own client credentials) against authorization servers that answer
nonsense, go down or trickle: a key set or an introspection answer of an unexpected shape refuses
the token (or skips the one bad key), never a 500; an endpoint down keeps the known keys in use;
`timeout` bounds the whole answer."""

from __future__ import annotations

import datetime
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer, SigningKey
from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from toolweave import Server
from toolweave.auth import IntrospectionVerifier, JWTVerifier, OAuthClientCredentials
from toolweave.auth.endpoint_answer import MAX_ANSWER_BYTES
from toolweave.core.errors import InvalidToken, UpstreamFailed

DEEP = b"[" * 100_000 + b"]" * 100_000
"""Valid JSON nested deeper than any parser recurses."""


@asynccontextmanager
async def answering(body: Any) -> AsyncIterator[str]:
    """An endpoint (GET and POST, any path) answering `body` (JSON, or raw bytes)."""

    async def answer(request: Request) -> Response:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return Response(content, media_type="application/json")

    async with serving(Starlette(routes=[Route("/{path:path}", answer, methods=["GET", "POST"])])) as url:
        yield url


@pytest.mark.parametrize("kid", [["a", "b"], {"k": 1}, 7], ids=["list", "object", "number"])
async def test_a_jwks_entry_with_a_kid_that_is_not_a_string_is_skipped(kid: Any) -> None:
    issuer = Issuer()
    good = issuer.keys[0]
    keys = {"keys": [{**issuer.keys[1].jwk(), "kid": kid}, good.jwk()]}
    async with answering(keys) as url:
        verifier = JWTVerifier(jwks_uri=url + "/jwks.json", issuer=ISSUER, audience=AUDIENCE)
        assert (await verifier.verify(issuer.token(good))).subject == "ada"


async def test_a_jwks_nested_too_deep_refuses_the_token() -> None:
    async with answering(DEEP) as url:
        verifier = JWTVerifier(jwks_uri=url + "/jwks.json", issuer=ISSUER, audience=AUDIENCE)
        with pytest.raises(InvalidToken, match="could not be fetched"):
            await verifier.verify(Issuer().token())


ODD_ANSWERS = {
    "aud a number": {"active": True, "sub": "ada", "aud": 5},
    "exp infinite": b'{"active": true, "sub": "ada", "exp": 1e999}',
    "exp NaN": b'{"active": true, "sub": "ada", "exp": NaN}',
    "nested too deep": DEEP,
}


@pytest.mark.parametrize("answer", ODD_ANSWERS.values(), ids=ODD_ANSWERS.keys())
async def test_an_odd_introspection_answer_refuses_the_token(answer: Any) -> None:
    async with answering(answer) as url:
        verifier = IntrospectionVerifier(url + "/introspect", client_id="c", client_secret="s", audience=AUDIENCE)
        try:
            with pytest.raises(InvalidToken):
                await verifier.verify("opaque-token")
        finally:
            await verifier.aclose()


OTHER_TOKENS = {
    "Ory Hydra's refresh token": {"token_use": "refresh_token"},
    "Keycloak's refresh token": {"typ": "Refresh"},
    "Keycloak's offline token": {"typ": "Offline"},
    "Keycloak's ID token": {"typ": "ID"},
    "a refresh token_type": {"token_type": "refresh_token"},
}


async def introspected(answer: dict[str, Any]) -> Any:
    """The caller an `IntrospectionVerifier` makes of a token the endpoint answers `answer` for,
    or its refusal."""
    async with answering(answer) as url:
        verifier = IntrospectionVerifier(url + "/introspect", client_id="c", client_secret="s", audience=AUDIENCE)
        try:
            return await verifier.verify("opaque-token")
        except InvalidToken as refused:
            return refused
        finally:
            await verifier.aclose()


@pytest.mark.parametrize("kind", OTHER_TOKENS.values(), ids=OTHER_TOKENS.keys())
async def test_an_active_token_the_server_calls_no_access_token_is_refused(kind: dict[str, str]) -> None:
    """Authorization servers introspect refresh and ID tokens as `active` too (whatever the
    `token_type_hint`): one is no caller's access token, even for this audience."""
    answer = {"active": True, "sub": "ada", "aud": AUDIENCE}
    refused = await introspected({**answer, **kind})
    assert isinstance(refused, InvalidToken) and "no access token" in str(refused)
    access = {"token_use": "access_token", "typ": "Bearer", "token_type": "Bearer"}
    assert (await introspected({**answer, **access})).subject == "ada"


class Crashing:
    """A hand-written verifier with a bug in it."""

    required_scopes: tuple[str, ...] = ()

    async def verify(self, token: str) -> Any:
        if token == "good":
            from toolweave import AuthInfo

            return AuthInfo(subject="ada", token=token)
        raise KeyError(f"s3cr3t {token}")


async def test_a_verifier_that_crashes_gets_500_naming_the_incident_and_the_server_keeps_serving(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = Server("notes").http_app(auth=Crashing())
    async with serving(app) as url, httpx2.AsyncClient() as http:
        body = json.dumps(RAW_INITIALIZE)
        crashed = await http.post(url + "/mcp", headers={**RAW_HEADERS, "authorization": "Bearer bad"}, content=body)
        good = await http.post(url + "/mcp", headers={**RAW_HEADERS, "authorization": "Bearer good"}, content=body)
    assert (crashed.status_code, good.status_code) == (500, 200)
    assert "s3cr3t" not in crashed.text
    incident = crashed.json()["error_description"].rpartition("incident ")[2].rstrip(")")
    assert f"the token verifier failed (incident {incident})" in caplog.text


async def test_a_jwks_endpoint_that_goes_down_leaves_the_known_keys_in_use() -> None:
    issuer = Issuer()
    state = {"up": True}

    async def jwks(request: Request) -> Response:
        if not state["up"]:
            return Response("maintenance", status_code=503)
        return Response(json.dumps({"keys": [key.jwk() for key in issuer.keys]}), media_type="application/json")

    async with serving(Starlette(routes=[Route("/jwks.json", jwks)])) as url:
        verifier = JWTVerifier(jwks_uri=url + "/jwks.json", issuer=ISSUER, audience=AUDIENCE, jwks_ttl=0)
        assert (await verifier.verify(issuer.token(sub="before"))).subject == "before"
        state["up"] = False  # the key set is due again on every request, and cannot be had
        assert (await verifier.verify(issuer.token(sub="during"))).subject == "during"
        assert (await verifier.verify(issuer.token(issuer.keys[1], sub="still"))).subject == "still"
    assert verifier.jwks_fetches == 2  # one failed refetch, then none before the refetch interval


@asynccontextmanager
async def trickling() -> AsyncIterator[str]:
    """An endpoint that answers one byte a second for a minute (each read is quick; the answer is
    not), until the client hangs up (older Starlette keeps streaming to a client that left)."""

    async def answer(request: Request) -> StreamingResponse:
        async def body() -> AsyncIterator[bytes]:
            for _ in range(60):
                yield b" "
                await anyio.sleep(1)
                if await request.is_disconnected():
                    return
            yield b"{}"

        return StreamingResponse(body(), media_type="application/json")

    async with serving(Starlette(routes=[Route("/{path:path}", answer, methods=["GET", "POST"])])) as url:
        yield url


async def test_a_jwks_endpoint_that_trickles_is_given_up_on_after_its_timeout() -> None:
    async with trickling() as url:
        verifier = JWTVerifier(jwks_uri=url + "/jwks.json", timeout=1.5)
        with anyio.fail_after(20), pytest.raises(InvalidToken, match="could not be fetched"):
            await verifier.verify(Issuer().token())


async def test_an_introspection_endpoint_that_trickles_is_given_up_on_after_its_timeout() -> None:
    async with trickling() as url:
        verifier = IntrospectionVerifier(url + "/introspect", client_id="c", client_secret="s", timeout=1.5)
        with anyio.fail_after(20), pytest.raises(InvalidToken, match="could not be asked"):
            await verifier.verify("opaque-token")
        await verifier.aclose()


async def test_a_token_endpoint_that_trickles_is_given_up_on_after_its_timeout() -> None:
    async with trickling() as url:
        credentials = OAuthClientCredentials(url + "/token", "gateway", "secret", timeout=1.5)
        async with httpx2.AsyncClient(auth=credentials) as http:
            with anyio.fail_after(20), pytest.raises(UpstreamFailed, match="cannot get an access token"):
                await http.get(url + "/anything")


def certificate_of(key: SigningKey) -> str:
    """A self-signed X.509 certificate for `key`, in PEM (how many issuers publish their key)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "issuer.test")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.private.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key.private, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode()


async def test_a_certificate_serves_as_the_public_key() -> None:
    key = SigningKey.rsa()
    verifier = JWTVerifier(public_key=certificate_of(key), issuer=ISSUER, audience=AUDIENCE)
    assert (await verifier.verify(Issuer(keys=[key]).token(key))).subject == "ada"


@pytest.mark.parametrize(
    "public_key",
    [
        "not a PEM at all",
        SigningKey.rsa()
        .private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        .decode(),
        {"kty": "RSA"},
    ],
    ids=["garbage", "a private key", "a JWK without its numbers"],
)
def test_an_unusable_public_key_is_refused_naming_the_parameter(public_key: Any) -> None:
    with pytest.raises(ValueError, match="JWTVerifier public_key is not"):
        JWTVerifier(public_key=public_key)


def test_one_string_of_scopes_or_one_algorithm_is_read_whole() -> None:
    verifier = JWTVerifier(jwks_uri="http://127.0.0.1:9/jwks", required_scopes="mcp notes", algorithms="ES256")
    introspection = IntrospectionVerifier(
        "http://127.0.0.1:9/i", client_id="c", client_secret="s", required_scopes="mcp"
    )
    assert (verifier.required_scopes, verifier.algorithms) == (("mcp", "notes"), ("ES256",))
    assert introspection.required_scopes == ("mcp",)


async def test_a_required_scope_given_as_a_string_admits_tokens_that_grant_it(issuer: Issuer) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, required_scopes="tools")
    body = json.dumps(RAW_INITIALIZE)
    app = Server("notes").http_app(auth=verifier, resource_url=AUDIENCE)
    async with serving(app) as url, httpx2.AsyncClient() as http:
        token = {"authorization": f"Bearer {issuer.token(scope='tools')}"}
        answer = await http.post(url + "/mcp", headers={**RAW_HEADERS, **token}, content=body)
    assert answer.status_code == 200


@pytest.mark.parametrize(
    ("aud", "accepted"), [("https://b.test/mcp", True), (["x", "https://a.test/mcp"], True), ("x", False)]
)
async def test_introspection_takes_a_list_of_audiences_like_jwt(aud: Any, accepted: bool) -> None:
    answer = {"active": True, "sub": "ada", "aud": aud}
    async with answering(answer) as url:
        audiences = ["https://a.test/mcp", "https://b.test/mcp"]
        verifier = IntrospectionVerifier(url + "/introspect", client_id="c", client_secret="s", audience=audiences)
        if accepted:
            assert (await verifier.verify("opaque-token")).subject == "ada"
        else:
            with pytest.raises(InvalidToken, match=r"another audience \('x', not 'https://a.test/mcp' or 'https://b"):
                await verifier.verify("opaque-token")  # (the operator's log says what it was, and what was wanted)
        await verifier.aclose()


PADDING = "x" * (MAX_ANSWER_BYTES + 1)
"""A field that makes an otherwise good answer longer than any endpoint's answer is read."""


async def test_a_jwks_answer_longer_than_the_cap_is_not_read(caplog: pytest.LogCaptureFixture) -> None:
    issuer = Issuer()
    async with answering({"keys": [key.jwk() for key in issuer.keys], "padding": PADDING}) as url:
        verifier = JWTVerifier(jwks_uri=url + "/jwks.json", issuer=ISSUER, audience=AUDIENCE)
        with pytest.raises(InvalidToken, match="could not be fetched"):
            await verifier.verify(issuer.token())
    assert f"the answer is longer than {MAX_ANSWER_BYTES} bytes" in caplog.text


async def test_an_introspection_answer_longer_than_the_cap_is_not_read(caplog: pytest.LogCaptureFixture) -> None:
    refused = await introspected({"active": True, "sub": "ada", "aud": AUDIENCE, "padding": PADDING})
    assert isinstance(refused, InvalidToken) and "could not be asked" in str(refused)
    assert f"the answer is longer than {MAX_ANSWER_BYTES} bytes" in caplog.text


async def test_a_token_endpoint_answer_longer_than_the_cap_is_not_read() -> None:
    async with answering({"access_token": "t0k3n", "expires_in": 600, "padding": PADDING}) as url:
        credentials = OAuthClientCredentials(url + "/token", "gateway", "secret")
        async with httpx2.AsyncClient(auth=credentials) as http:
            with pytest.raises(UpstreamFailed, match=r"cannot get an access token.*AnswerTooLarge"):
                await http.get(url + "/anything")


async def test_an_answer_within_the_cap_is_read_whole() -> None:
    issuer = Issuer()
    fits = "x" * (MAX_ANSWER_BYTES - 4096)
    async with answering({"keys": [key.jwk() for key in issuer.keys], "padding": fits}) as url:
        verifier = JWTVerifier(jwks_uri=url + "/jwks.json", issuer=ISSUER, audience=AUDIENCE)
        assert (await verifier.verify(issuer.token())).subject == "ada"
