"""The JWT reader behind `JWTVerifier`: each rule on its own, on real signed tokens."""

from __future__ import annotations

import base64
from typing import Any

import jwt
import pytest

from tests.auth.issuer import SigningKey
from toolweave.auth.jws import Compact, check_claims

NOW = 1_800_000_000


def claims(**overrides: Any) -> dict[str, Any]:
    return {"iss": "https://issuer.test/", "aud": "https://mcp.test/", "exp": NOW + 60, **overrides}


def check(found: dict[str, Any]) -> None:
    check_claims(found, now=NOW, leeway=30, issuer="https://issuer.test/", audience=["https://mcp.test/"])


@pytest.mark.parametrize("algorithm", ["RS256", "ES256"])
def test_a_signed_token_reads_and_verifies(algorithm: str) -> None:
    key = SigningKey.rsa() if algorithm == "RS256" else SigningKey.ec()
    token = jwt.encode(claims(sub="ada"), key.private, algorithm=algorithm, headers={"kid": key.kid})
    parsed = Compact.parse(token)
    parsed.verify(algorithm, key.private.public_key())
    assert parsed.header["kid"] == key.kid and parsed.claims["sub"] == "ada"
    other = SigningKey.rsa() if algorithm == "RS256" else SigningKey.ec()
    with pytest.raises(jwt.InvalidSignatureError):
        parsed.verify(algorithm, other.private.public_key())


@pytest.mark.parametrize(
    "token",
    ["", "a.b", "a.b.c.d", "e30.e30.!!!", "W10.e30.", "e30.bm90IGpzb24.", "e30.e30.\u00e9"],
    ids=["empty", "two parts", "four parts", "bad alphabet", "header not an object", "payload not JSON", "non-ascii"],
)
def test_malformed_tokens_are_decode_errors(token: str) -> None:
    with pytest.raises(jwt.DecodeError):
        Compact.parse(token)


@pytest.mark.parametrize("payload", [b'{"exp": NaN}', b'{"exp": -Infinity}'], ids=["NaN", "Infinity"])
def test_a_payload_with_non_json_numbers_is_a_decode_error(payload: bytes) -> None:
    segment = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    with pytest.raises(jwt.DecodeError, match="not JSON"):
        Compact.parse(f"eyJhbGciOiJSUzI1NiJ9.{segment}.c2ln")


def test_a_critical_header_is_refused() -> None:
    key = SigningKey.rsa()
    token = jwt.encode(claims(), key.private, algorithm="RS256", headers={"crit": ["b64"], "b64": True})
    with pytest.raises(jwt.DecodeError, match="critical"):
        Compact.parse(token)


@pytest.mark.parametrize(
    ("found", "error"),
    [
        (claims(exp=None), jwt.MissingRequiredClaimError),
        (claims(exp=NOW - 31), jwt.ExpiredSignatureError),
        (claims(exp="soon"), jwt.DecodeError),
        (claims(exp=True), jwt.DecodeError),
        (claims(exp=float("inf")), jwt.DecodeError),
        (claims(exp=10**400), jwt.DecodeError),
        (claims(nbf=NOW + 31), jwt.ImmatureSignatureError),
        (claims(iat=NOW + 31), jwt.ImmatureSignatureError),
        (claims(iss="https://evil.test/"), jwt.InvalidIssuerError),
        (claims(aud="https://other.test/"), jwt.InvalidAudienceError),
        (claims(aud=["https://other.test/"]), jwt.InvalidAudienceError),
        (claims(aud=None), jwt.MissingRequiredClaimError),
    ],
    ids=[
        "no exp",
        "expired",
        "exp not a number",
        "exp a boolean",
        "exp infinite",
        "exp beyond any float",
        "nbf ahead",
        "iat ahead",
        "iss",
        "aud",
        "aud list",
        "no aud",
    ],
)
def test_each_claim_rule_refuses(found: dict[str, Any], error: type[Exception]) -> None:
    found = {key: value for key, value in found.items() if value is not None}
    with pytest.raises(error):
        check(found)


@pytest.mark.parametrize(
    ("found", "reason"),
    [
        (claims(iss="https://issuer.test"), "the token's iss is 'https://issuer.test', not 'https://issuer.test/'"),
        (claims(aud=["https://a.test/", "x" * 200]), "the token's aud is ['https://a.test/', 'xxxx"),
    ],
    ids=["iss", "aud"],
)
def test_a_refused_issuer_or_audience_names_what_the_token_says_and_what_was_wanted(
    found: dict[str, Any], reason: str
) -> None:
    """The operator's log says why (a trailing `/` on an issuer is the usual mistake), bounded."""
    with pytest.raises((jwt.InvalidIssuerError, jwt.InvalidAudienceError)) as refused:
        check(found)
    assert reason in str(refused.value) and len(str(refused.value)) < 250


def test_leeway_and_audience_lists_are_honoured() -> None:
    check(claims(exp=NOW - 29, nbf=NOW + 29, iat=NOW + 29, aud=["https://other.test/", "https://mcp.test/"]))
