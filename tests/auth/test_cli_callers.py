"""The caller a CLI command acts as is held to what the HTTP edge holds it to: a real `JWTVerifier`
against a real JWKS endpoint (the `issuer` fixture)."""

from __future__ import annotations

import logging
import time

import pytest

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer
from toolweave.auth import JWTVerifier
from toolweave.cli_callers import CallerRefused, token_caller
from toolweave.core.context import AuthInfo


async def test_a_token_past_exp_within_the_verifiers_leeway_is_refused_as_the_edge_refuses_it(issuer: Issuer) -> None:
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, leeway=30)
    late = issuer.token(exp=int(time.time()) - 5)
    assert (await verifier.verify(late)).subject == "ada"  # (the verifier alone accepts it)
    with pytest.raises(CallerRefused, match=r"^the token was refused: expired \(the HTTP edge allows no leeway"):
        await token_caller(verifier, late)
    assert (await token_caller(verifier, issuer.token())).subject == "ada"


async def test_a_crashing_verifier_is_a_clear_refusal_with_its_traceback_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        required_scopes = ()

        async def verify(self, token: str) -> AuthInfo:
            raise KeyError("kid")

    with caplog.at_level(logging.ERROR, logger="toolweave.auth"), pytest.raises(CallerRefused) as refused:
        await token_caller(Broken(), "t0k3n-value")
    assert str(refused.value) == "the token could not be checked: the verifier failed (KeyError)"
    assert caplog.records[0].exc_info is not None and "t0k3n-value" not in caplog.text
