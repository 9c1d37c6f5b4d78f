"""`JWTVerifier` against a real JWKS endpoint on 127.0.0.1 with freshly generated RSA and EC keys."""

from __future__ import annotations

import time

import anyio
import jwt
import pytest

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer, SigningKey, hs256_with_public_key, unsigned
from tests.conftest import free_port
from toolweave.auth import JWTVerifier
from toolweave.auth.jwt_verifier import RETRY_WITHOUT_KEYS
from toolweave.core.errors import InvalidToken


def verifier_for(issuer: Issuer, **options: object) -> JWTVerifier:
    return JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("key_index", [0, 1], ids=["RS256", "ES256"])
async def test_a_valid_token_gives_the_caller(issuer: Issuer, key_index: int) -> None:
    caller = await verifier_for(issuer).verify(issuer.token(issuer.keys[key_index], org="acme"))
    assert (caller.subject, caller.scopes, caller.claims["org"]) == ("ada", ("tools", "notes"), "acme")
    assert caller.expires_at is not None and caller.expires_at > time.time()


def _tampered_payload(issuer: Issuer) -> str:
    header, _, signature = issuer.token().split(".")
    forged = issuer.token(sub="root").split(".")[1]
    return f"{header}.{forged}.{signature}"


def _tampered_signature(issuer: Issuer) -> str:
    token = issuer.token()
    last = "A" if token[-2] != "A" else "B"
    return token[:-2] + last + token[-1]


FORGERIES = {  # how to forge it, and why it must be refused
    "expired": (lambda i: i.token(exp=int(time.time()) - 120), "ExpiredSignature"),
    "nbf in the future": (lambda i: i.token(nbf=int(time.time()) + 600), r"not yet valid \(nbf\)"),
    "iat in the future": (lambda i: i.token(iat=int(time.time()) + 600), r"not yet valid \(iat\)"),
    "wrong issuer": (lambda i: i.token(iss="https://evil.test/"), "InvalidIssuer"),
    "wrong audience": (lambda i: i.token(aud="https://other.test/mcp"), "InvalidAudience"),
    "no exp": (lambda i: i.token(exp=None), 'missing the "exp" claim'),
    "alg none": (
        lambda i: unsigned(i.claims(), {"alg": "none", "typ": "JWT", "kid": i.keys[0].kid}),
        "'none' is not allowed",
    ),
    "HS256 signed with the public key": (hs256_with_public_key, "'HS256' is not allowed"),
    "unknown kid": (lambda i: i.token(SigningKey.rsa()), "no signing key with kid"),
    "signed by a stranger with a known kid": (
        lambda i: i.token(SigningKey("RS256", SigningKey.rsa().private, i.keys[0].kid)),
        "InvalidSignature",
    ),
    "tampered payload": (_tampered_payload, "InvalidSignature"),
    "tampered signature": (_tampered_signature, "InvalidSignature"),
    "not a JWT": (lambda i: "opaque-token-value", "malformed"),
    "empty": (lambda i: "", "malformed"),
    "three dots": (lambda i: "..", "malformed"),
    "RS256 header on the EC key": (
        lambda i: jwt.encode(i.claims(), i.keys[0].private, algorithm="RS256", headers={"kid": i.keys[1].kid}),
        "does not fit the EC key",
    ),
    "oversized": (lambda i: i.token(padding="x" * 20_000), "longer than"),
}


@pytest.mark.parametrize(("forge", "reason"), FORGERIES.values(), ids=FORGERIES.keys())
async def test_every_forgery_is_refused_for_its_reason(issuer: Issuer, forge: object, reason: str) -> None:
    verifier = verifier_for(issuer)
    with pytest.raises(InvalidToken, match=reason):
        await verifier.verify(forge(issuer))  # type: ignore[operator]


async def test_a_static_public_key_needs_no_jwks() -> None:
    key = SigningKey.ec()
    issuer = Issuer(keys=[key])
    verifier = JWTVerifier(public_key=key.public_pem(), issuer=ISSUER, audience=AUDIENCE, algorithms=["ES256"])
    assert (await verifier.verify(issuer.token(key))).subject == "ada"
    with pytest.raises(InvalidToken):
        await verifier.verify(issuer.token(SigningKey.ec()))


async def test_rotation_fetches_the_jwks_once_for_a_hundred_requests_and_old_tokens_fail(issuer: Issuer) -> None:
    verifier = verifier_for(issuer, refetch_interval=0)
    old_key = issuer.keys[0]
    old_token = issuer.token(old_key)
    await verifier.verify(old_token)
    assert issuer.jwks_requests == 1

    issuer.rotate()
    new_tokens = [issuer.token(issuer.keys[n % 2], sub=f"user-{n}") for n in range(100)]
    subjects: list[str | None] = []

    async def verify(token: str) -> None:
        subjects.append((await verifier.verify(token)).subject)

    async with anyio.create_task_group() as tasks:
        for token in new_tokens:
            tasks.start_soon(verify, token)
    assert sorted(subjects, key=str) == sorted((f"user-{n}" for n in range(100)), key=str)
    assert issuer.jwks_requests == 2  # one fetch for the whole rotation

    # The old key is gone from the JWKS: its tokens fail on this verifier, the one it had
    # accepted (and remembered) before the rotation and one it never saw.
    with pytest.raises(InvalidToken, match="no signing key"):
        await verifier.verify(old_token)
    with pytest.raises(InvalidToken, match="no signing key"):
        await verifier.verify(issuer.token(old_key, sub="never-seen"))


async def test_unknown_kids_cannot_make_it_hammer_the_jwks(issuer: Issuer) -> None:
    verifier = verifier_for(issuer, refetch_interval=60)
    await verifier.verify(issuer.token())
    for _ in range(20):
        with pytest.raises(InvalidToken):
            await verifier.verify(issuer.token(SigningKey.rsa()))
    assert issuer.jwks_requests == 2  # the first fetch, then one refetch per interval


async def test_a_verified_token_is_not_checked_again(issuer: Issuer) -> None:
    verifier = verifier_for(issuer)
    token = issuer.token()
    first = await verifier.verify(token)
    issuer.rotate()  # its key gone, the remembered answer stands until the JWKS is fetched again
    assert await verifier.verify(token) is first
    assert issuer.jwks_requests == 1


async def test_an_unreachable_jwks_refuses_quickly() -> None:
    verifier = JWTVerifier(jwks_uri=f"http://127.0.0.1:{free_port()}/jwks.json", timeout=1)
    with anyio.fail_after(5), pytest.raises(InvalidToken, match="could not be fetched"):
        await verifier.verify(Issuer().token())


async def test_keys_the_jwks_endpoint_could_not_give_at_start_are_fetched_within_a_second_of_its_return(
    issuer: Issuer,
) -> None:
    issuer.jwks_up = False
    verifier = verifier_for(issuer)
    for _ in range(3):  # one fetch: the requests after it within the retry delay give the same reason
        with pytest.raises(InvalidToken, match="could not be fetched"):
            await verifier.verify(issuer.token())
    assert issuer.jwks_requests == 1
    issuer.jwks_up = True
    await anyio.sleep(RETRY_WITHOUT_KEYS + 0.1)
    assert (await verifier.verify(issuer.token())).subject == "ada"
    assert issuer.jwks_requests == 2


async def test_a_jwks_with_no_usable_key_is_logged_with_why_and_fetched_again_within_a_second(
    issuer: Issuer, caplog: pytest.LogCaptureFixture
) -> None:
    """An empty key set mid-rotation, or only keys this verifier cannot use: a failure, not keys
    known for the JWKS's whole lifetime (every request refused for five minutes)."""
    key = SigningKey.ec()
    issuer.keys = [SigningKey.rsa()]
    verifier = verifier_for(issuer, algorithms=["ES256"])  # the JWKS holds only an RSA key
    with pytest.raises(InvalidToken, match="could not be fetched"):
        await verifier.verify(issuer.token(key))
    assert "no signing key it holds is usable here" in caplog.text and "alg 'RS256' is not allowed" in caplog.text
    issuer.keys = [key]  # published
    await anyio.sleep(RETRY_WITHOUT_KEYS + 0.1)
    assert (await verifier.verify(issuer.token(key))).subject == "ada"
    assert issuer.jwks_requests == 2


async def test_a_secret_in_the_jwks_url_is_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    verifier = JWTVerifier(jwks_uri=f"http://u:pw-S3CRET@127.0.0.1:{free_port()}/jwks?access_key=k-S3CRET", timeout=1)
    with pytest.raises(InvalidToken):
        await verifier.verify(Issuer().token())
    assert "could not fetch the JWKS" in caplog.text
    assert "S3CRET" not in caplog.text + repr(verifier)


def test_symmetric_or_empty_algorithm_lists_are_refused_at_construction() -> None:
    for algorithms in (["HS256"], ["none"], [], ["RS256", "HS512"]):
        with pytest.raises(ValueError, match="asymmetric"):
            JWTVerifier(jwks_uri="http://127.0.0.1/jwks", algorithms=algorithms)
    with pytest.raises(ValueError, match="exactly one"):
        JWTVerifier()


@pytest.mark.parametrize("typ", ["at+jwt", "application/at+jwt", "AT+JWT"])
async def test_with_token_types_an_rfc_9068_access_token_passes(issuer: Issuer, typ: str) -> None:
    verifier = verifier_for(issuer, token_types=["at+jwt"])
    assert (await verifier.verify(issuer.token(headers={"typ": typ}))).subject == "ada"


@pytest.mark.parametrize("typ", ["JWT", None, "id_token+jwt"])
async def test_with_token_types_an_id_token_of_the_same_issuer_is_refused(issuer: Issuer, typ: str | None) -> None:
    verifier = verifier_for(issuer, token_types=["at+jwt"])
    with pytest.raises(InvalidToken, match=r"token type .* is not accepted"):
        await verifier.verify(issuer.token(headers={"typ": typ}))  # (None: no typ at all)
    assert (await verifier_for(issuer).verify(issuer.token(headers={"typ": "JWT"}))).subject == "ada"  # default: any


LONG_HEADERS = {  # a header value the client wrote, 9,000 characters long
    "kid": (lambda i: i.token(headers={"kid": "../" * 3000, "typ": "at+jwt"}), "no signing key with kid '../../"),
    "alg": (lambda i: unsigned(i.claims(), {"alg": "x" * 9000, "kid": i.keys[0].kid}), "algorithm 'xxx"),
    "typ": (lambda i: i.token(headers={"typ": "y" * 9000}), "token type 'yyy"),
}


@pytest.mark.parametrize(("forge", "reason"), LONG_HEADERS.values(), ids=LONG_HEADERS.keys())
async def test_a_refusal_for_a_long_header_value_shows_it_cut_short(issuer: Issuer, forge: object, reason: str) -> None:
    """The reason goes to the operator's log on every request: a client's 9 KB `kid` is not copied there."""
    verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE, token_types=["at+jwt"])
    with pytest.raises(InvalidToken, match=reason) as refused:
        await verifier.verify(forge(issuer))  # type: ignore[operator]
    assert len(str(refused.value)) < 200
