"""A compact JWS (a signed JWT) read once, and its registered claims checked.

PyJWT 2.15 validates the alphabet of each base64url segment in a Python loop, once for
`get_unverified_header` and again for `decode`: ~170 µs of a ~200 µs RS256 verification. Here the
token's shape and alphabet are checked by one regular expression, each part is decoded once (the
header and claims by pydantic-core's JSON parser, a third of the cost of `json.loads`), the
signature is verified by PyJWT's own algorithm objects (`jwt.get_algorithm_by_name`), and the
claims are checked with the same rules and error classes PyJWT uses, so logs read alike.

Example:
    >>> Compact.parse("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZGEifQ.").header
    {'alg': 'none'}
    >>> Compact.parse("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZGEifQ")
    Traceback (most recent call last):
    ...
    jwt.exceptions.DecodeError: Not enough segments or not base64url
    >>> check_claims({"exp": 0}, now=100, leeway=30, issuer=None, audience=None)
    Traceback (most recent call last):
    ...
    jwt.exceptions.ExpiredSignatureError: Signature has expired
"""

from __future__ import annotations

import binascii
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jwt
from pydantic_core import from_json

from toolweave.auth.verifier import claim_shown, issued_for

_COMPACT = re.compile(r"([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)")
"""Header, payload, signature (empty for `alg: none`, which the algorithm check then refuses)."""


_URLSAFE = bytes.maketrans(b"-_", b"+/")


def _decode(segment: str) -> bytes:
    """A base64url segment's bytes (its alphabet already checked by `_COMPACT`)."""
    try:
        return binascii.a2b_base64(segment.encode().translate(_URLSAFE) + b"=" * (-len(segment) % 4))
    except binascii.Error:
        raise jwt.DecodeError("Invalid base64url segment") from None


def _object(segment: str, what: str) -> dict[str, Any]:
    try:
        found = from_json(_decode(segment), allow_inf_nan=False)
    except ValueError:  # bad UTF-8 or bad JSON
        raise jwt.DecodeError(f"Invalid {what}: not JSON") from None
    if not isinstance(found, dict):
        raise jwt.DecodeError(f"Invalid {what}: not a JSON object")
    return found


@dataclass(frozen=True, slots=True)
class Compact:
    """A parsed compact JWS: header, payload (claims), what was signed, and the signature."""

    header: dict[str, Any]
    claims: dict[str, Any]
    signed: bytes
    signature: bytes

    @classmethod
    def parse(cls, token: str) -> Compact:
        """Three base64url parts, a JSON-object header and payload; `DecodeError` otherwise."""
        match = _COMPACT.fullmatch(token)
        if match is None:
            raise jwt.DecodeError("Not enough segments or not base64url")
        header, payload, signature = match.groups()
        fields = _object(header, "header")
        if "crit" in fields:
            raise jwt.DecodeError("Unsupported critical header parameters")
        claims = _object(payload, "payload")
        return cls(fields, claims, token[: match.end(2)].encode(), _decode(signature))

    def verify(self, algorithm: str, key: Any) -> None:
        """Check the signature with `key`; `InvalidSignatureError` if it does not match."""
        if not jwt.get_algorithm_by_name(algorithm).verify(self.signed, key, self.signature):
            raise jwt.InvalidSignatureError("Signature verification failed")


def _number(claims: dict[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    try:
        number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an integer beyond any float
        number = math.nan
    if not math.isfinite(number):
        raise jwt.DecodeError(f"The {name} claim must be a finite number")
    return number


def check_claims(
    claims: dict[str, Any], *, now: float, leeway: float, issuer: str | None, audience: Sequence[str] | None
) -> None:
    """`exp` (required), `nbf`, `iat` with `leeway` seconds of skew; `iss` equal to `issuer` and
    `aud` containing one of `audience` (as URLs, `verifier.issued_for`), when given. Raises the
    PyJWT error of the first failure."""
    expires = _number(claims, "exp")
    if expires is None:
        raise jwt.MissingRequiredClaimError("exp")
    if expires <= now - leeway:
        raise jwt.ExpiredSignatureError("Signature has expired")
    not_before = _number(claims, "nbf")
    if not_before is not None and not_before > now + leeway:
        raise jwt.ImmatureSignatureError("The token is not yet valid (nbf)")
    issued = _number(claims, "iat")
    if issued is not None and issued > now + leeway:
        raise jwt.ImmatureSignatureError("The token is not yet valid (iat)")
    if issuer is not None and claims.get("iss") != issuer:
        raise jwt.InvalidIssuerError(
            f"Invalid issuer: the token's iss is {claim_shown(claims.get('iss'))}, not {issuer!r}"
        )
    if audience is not None:
        found = claims.get("aud")
        given = [found] if isinstance(found, str) else found if isinstance(found, list) else None
        if given is None:
            raise jwt.MissingRequiredClaimError("aud")
        if not issued_for(given, audience):
            wanted = " or ".join(map(repr, audience))
            raise jwt.InvalidAudienceError(
                f"Audience doesn't match: the token's aud is {claim_shown(found)}, not {wanted}"
            )
