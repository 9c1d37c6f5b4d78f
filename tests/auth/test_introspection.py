"""`IntrospectionVerifier` against a real RFC 7662 endpoint on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from tests.auth.issuer import AUDIENCE, INTROSPECTION_CLIENT, ISSUER, Issuer
from tests.conftest import free_port
from toolweave.auth import IntrospectionVerifier
from toolweave.core.errors import InvalidToken


@asynccontextmanager
async def verifier_for(issuer: Issuer) -> AsyncIterator[IntrospectionVerifier]:
    client_id, secret = INTROSPECTION_CLIENT
    verifier = IntrospectionVerifier(
        issuer.introspection_url, client_id=client_id, client_secret=secret, audience=AUDIENCE
    )
    try:
        yield verifier
    finally:
        await verifier.aclose()


async def test_an_active_token_is_the_caller_and_is_remembered_briefly(issuer: Issuer) -> None:
    token = issuer.opaque_token(sub="grace", scope="notes tools", aud=AUDIENCE, iss=ISSUER)
    async with verifier_for(issuer) as verifier:
        first = await verifier.verify(token)
        second = await verifier.verify(token)
    assert (first.subject, first.scopes) == ("grace", ("notes", "tools"))
    assert second is first and issuer.introspections == 1


async def test_an_audience_is_the_same_url_however_it_is_written(issuer: Issuer) -> None:
    token = issuer.opaque_token(aud="HTTP://127.0.0.1:80/mcp/")
    async with verifier_for(issuer) as verifier:
        assert (await verifier.verify(token)).subject == "ada"


INACTIVE = {
    "unknown token": lambda i: "never-issued",
    "inactive": lambda i: i.opaque_token(active=False),
    "expired": lambda i: i.opaque_token(exp=int(time.time()) - 10, active=False),
    "other audience": lambda i: i.opaque_token(aud="https://other.test/mcp"),
    "empty": lambda i: "",
}


@pytest.mark.parametrize("make", INACTIVE.values(), ids=INACTIVE.keys())
async def test_inactive_or_foreign_tokens_are_refused_and_not_remembered(issuer: Issuer, make: object) -> None:
    token = make(issuer)  # type: ignore[operator]
    async with verifier_for(issuer) as verifier:
        for _ in range(2):
            with pytest.raises(InvalidToken):
                await verifier.verify(token)
    assert issuer.introspections == (0 if token == "" else 2)


async def test_wrong_client_credentials_refuse_every_token(issuer: Issuer) -> None:
    verifier = IntrospectionVerifier(issuer.introspection_url, "gateway", "wrong")  # (url, client_id, client_secret)
    with pytest.raises(InvalidToken, match="could not be asked"):
        await verifier.verify(issuer.opaque_token())
    await verifier.aclose()


async def test_a_secret_in_the_endpoint_url_is_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://gw:pw-S3CRET@127.0.0.1:{free_port()}/introspect?api_key=k-S3CRET"
    verifier = IntrospectionVerifier(url, client_id="a", client_secret="b", timeout=1)
    with pytest.raises(InvalidToken):
        await verifier.verify("some-token")
    await verifier.aclose()
    assert "introspection at" in caplog.text and "S3CRET" not in caplog.text + repr(verifier)


async def test_an_unreachable_endpoint_refuses_within_its_timeout() -> None:
    verifier = IntrospectionVerifier(
        f"http://127.0.0.1:{free_port()}/introspect", client_id="a", client_secret="b", timeout=1
    )
    with anyio.fail_after(5), pytest.raises(InvalidToken):
        await verifier.verify("some-token")
    await verifier.aclose()
