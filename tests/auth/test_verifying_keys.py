"""A key decides what it verifies, not the token's `alg`: an EC key its curve's algorithm, a JWK
with an `alg` that one alone, an RSA key only from 2048 bits; keys sharing a `kid` are alternatives
(RFC 7517 §4.5). Checked against a real JWKS endpoint on 127.0.0.1."""

from __future__ import annotations

import base64
import json
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from jwt.algorithms import ECAlgorithm

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer, SigningKey
from tests.auth.test_probe_verifiers import answering
from toolweave.auth import JWTVerifier
from toolweave.core.errors import InvalidToken

ALGORITHMS = ("RS256", "RS512", "PS256", "ES256", "ES384")


def _part(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def es256_on_p384(key: SigningKey, claims: dict[str, Any]) -> str:
    """A token whose header says ES256 (P-256 and SHA-256), signed with SHA-256 on a P-384 key: what
    PyJWT's own `encode` refuses to make, and its `decode` to accept."""
    signed = f"{_part(json.dumps({'alg': 'ES256', 'kid': key.kid}).encode())}.{_part(json.dumps(claims).encode())}"
    r, s = decode_dss_signature(key.private.sign(signed.encode(), ec.ECDSA(hashes.SHA256())))
    return f"{signed}.{_part(r.to_bytes(48, 'big') + s.to_bytes(48, 'big'))}"


def verifier_at(url: str) -> JWTVerifier:
    return JWTVerifier(jwks_uri=url + "/jwks.json", issuer=ISSUER, audience=AUDIENCE, algorithms=ALGORITHMS)


@pytest.mark.parametrize("stated", [None, "ES384"], ids=["jwk without alg", "jwk alg ES384"])
async def test_an_es256_token_on_a_p384_key_is_refused(stated: str | None) -> None:
    key = SigningKey("ES384", ec.generate_private_key(ec.SECP384R1()))
    jwk = {**ECAlgorithm.to_jwk(key.private.public_key(), as_dict=True), "kid": key.kid, "alg": stated}
    issuer = Issuer(keys=[key])
    async with answering({"keys": [{name: value for name, value in jwk.items() if value is not None}]}) as url:
        verifier = verifier_at(url)
        with pytest.raises(InvalidToken, match="'ES256' does not fit the EC key"):
            await verifier.verify(es256_on_p384(key, issuer.claims()))
        assert (await verifier.verify(issuer.token(key))).subject == "ada"  # ES384, its own algorithm


@pytest.mark.parametrize("algorithm", ["RS512", "PS256"])
async def test_a_token_is_refused_when_its_alg_is_not_the_one_its_jwk_names(algorithm: str) -> None:
    issuer = Issuer()
    key = issuer.keys[0]  # its JWK says "alg": "RS256"
    async with answering({"keys": [key.jwk()]}) as url:
        verifier = verifier_at(url)
        signed = jwt.encode(issuer.claims(), key.private, algorithm=algorithm, headers={"kid": key.kid})
        with pytest.raises(InvalidToken, match=f"'{algorithm}' does not fit the RSA key \\(it verifies RS256\\)"):
            await verifier.verify(signed)
        assert (await verifier.verify(issuer.token(key))).subject == "ada"


@pytest.mark.filterwarnings("ignore:The RSA key is 1024 bits long:UserWarning")  # minting the weak token
async def test_an_rsa_key_under_2048_bits_in_the_jwks_is_never_used() -> None:
    weak = SigningKey("RS256", rsa.generate_private_key(public_exponent=65537, key_size=1024))
    issuer = Issuer()
    async with answering({"keys": [weak.jwk(), issuer.keys[0].jwk()]}) as url:
        verifier = verifier_at(url)
        assert (await verifier.verify(issuer.token())).subject == "ada"
        with pytest.raises(InvalidToken, match=f"the JWKS key with kid '{weak.kid}' is not used here .*1024 bits long"):
            await verifier.verify(issuer.token(weak))


@pytest.mark.filterwarnings("ignore:The RSA key is 1024 bits long:UserWarning")
async def test_a_jwks_of_rsa_keys_under_2048_bits_alone_is_logged_saying_so(caplog: pytest.LogCaptureFixture) -> None:
    weak = SigningKey("RS256", rsa.generate_private_key(public_exponent=65537, key_size=1024))
    async with answering({"keys": [weak.jwk()]}) as url:
        with pytest.raises(InvalidToken, match="could not be fetched"):
            await verifier_at(url).verify(Issuer(keys=[weak]).token(weak))
    assert f"kid {weak.kid!r}: it verifies none of" in caplog.text
    assert "1024 bits long" in caplog.text


def test_a_public_key_under_2048_bits_is_refused_when_the_verifier_is_made() -> None:
    weak = SigningKey("RS256", rsa.generate_private_key(public_exponent=65537, key_size=1024))
    with pytest.raises(ValueError, match=r"public_key: the RSA key is unusable here.*1024 bits long"):
        JWTVerifier(public_key=weak.public_pem())


def test_a_public_key_of_a_curve_no_allowed_algorithm_uses_is_refused_when_made() -> None:
    p384 = SigningKey("ES384", ec.generate_private_key(ec.SECP384R1()))
    with pytest.raises(ValueError, match=r"verifies none of RS256, ES256.*secp384r1"):
        JWTVerifier(public_key=p384.public_pem())
    assert JWTVerifier(public_key=p384.public_pem(), algorithms=["ES384"]).algorithms == ("ES384",)


@pytest.mark.parametrize("ec_first", [False, True], ids=["RSA first", "EC first"])
async def test_keys_sharing_a_kid_each_verify_their_own_algorithm(ec_first: bool) -> None:
    rsa_key, ec_key = SigningKey.rsa(), SigningKey.ec()
    ec_key.kid = rsa_key.kid  # "different kty values but equivalent alternatives" (RFC 7517 §4.5)
    issuer = Issuer(keys=[rsa_key, ec_key])
    keys = [ec_key.jwk(), rsa_key.jwk()] if ec_first else [rsa_key.jwk(), ec_key.jwk()]
    async with answering({"keys": keys}) as url:
        verifier = verifier_at(url)
        assert (await verifier.verify(issuer.token(rsa_key, sub="rsa"))).subject == "rsa"
        assert (await verifier.verify(issuer.token(ec_key, sub="ec"))).subject == "ec"
        assert verifier.jwks_fetches == 1
