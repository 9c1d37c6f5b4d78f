"""`VerifyingKey`: a public key and the algorithms it may verify, decided once, when it is loaded.

A token's `alg` header is the signer's claim; the key decides what it verifies (RFC 7515 §10.7).
The algorithms a key may verify are those of the allow-list that fit it:

- its JWK key type (`RSA` for `RS*`/`PS*`, `EC` for `ES*`, `OKP` for `EdDSA`), and the key
  class each algorithm's `prepare_key` takes;
- for an EC key, its curve (RFC 7518 §3.4: ES256 is P-256, ES384 P-384, ES512 P-521; checked
  here: PyJWT 2.10.1, the lowest version declared, does not);
- for an RSA key, at least 2048 bits (RFC 7518 §3.3 and §3.5: "MUST be used"; PyJWT warns);
- when its JWK names one (`alg`), that one alone (RFC 7517 §4.4).

A key that fits none is refused where it is loaded, with the reason.

Example:
    >>> from cryptography.hazmat.primitives.asymmetric import ec
    >>> p384 = ec.generate_private_key(ec.SECP384R1()).public_key()
    >>> sorted(verifying_key("EC", p384, ("ES256", "ES384")).algorithms)
    ['ES384']
    >>> verifying_key("EC", p384, ("RS256", "ES256"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: it verifies none of RS256, ES256 (ES256: the key's curve is secp384r1, not secp256r1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import jwt

ASYMMETRIC = {
    "RS256": "RSA", "RS384": "RSA", "RS512": "RSA",
    "PS256": "RSA", "PS384": "RSA", "PS512": "RSA",
    "ES256": "EC", "ES384": "EC", "ES512": "EC", "ES256K": "EC",
    "EdDSA": "OKP",
}  # fmt: skip
"""The algorithms a `JWTVerifier` may accept, with the JWK key type each one needs."""
CURVES = {"ES256": "secp256r1", "ES384": "secp384r1", "ES512": "secp521r1", "ES256K": "secp256k1"}
"""The one curve each ECDSA algorithm signs on (RFC 7518 §3.4, RFC 8812 §3.2)."""
MIN_RSA_BITS = 2048


class VerifyingKey(NamedTuple):
    """A public key, its JWK key type ("RSA", "EC" or "OKP") and the algorithms it may verify."""

    key_type: str
    key: Any
    algorithms: frozenset[str]


def verifying_key(key_type: str, key: Any, allowed: Iterable[str], stated: Any = None) -> VerifyingKey:
    """`key` with the algorithms of `allowed` it may verify (only `stated`, its JWK's `alg`, if given).

    Raises:
        ValueError: it may verify none of them; the message says why for each one that was close.
    """
    allowed = tuple(allowed)
    fits: set[str] = set()
    reasons: list[str] = []
    for name in allowed:
        if ASYMMETRIC[name] != key_type or (stated is not None and name != stated):
            continue
        misfit = _misfit(name, key)
        if misfit is not None:
            reasons.append(f"{name}: {misfit}")
            continue
        fits.add(name)
    if not fits:
        why = f" ({'; '.join(reasons)})" if reasons else ""
        named = f" (its JWK names {str(stated)[:20]!r})" if stated is not None and not reasons else ""
        raise ValueError(f"it verifies none of {', '.join(allowed)}{named or why}")
    return VerifyingKey(key_type, key, frozenset(fits))


def _misfit(name: str, key: Any) -> str | None:
    """Why `key` (of `name`'s key type) may not verify `name`, or None: its curve, its size, or a
    class `name`'s `prepare_key` refuses."""
    curve = getattr(getattr(key, "curve", None), "name", None)
    if name in CURVES and curve != CURVES[name]:
        return f"the key's curve is {curve}, not {CURVES[name]}"
    if ASYMMETRIC[name] == "RSA" and getattr(key, "key_size", 0) < MIN_RSA_BITS:
        return f"the key is {getattr(key, 'key_size', '?')} bits long, and RSA needs at least {MIN_RSA_BITS}"
    try:
        jwt.get_algorithm_by_name(name).prepare_key(key)
    except (jwt.InvalidKeyError, TypeError) as error:
        return str(error)
    return None
