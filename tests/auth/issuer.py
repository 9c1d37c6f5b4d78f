"""A real token issuer on 127.0.0.1: a JWKS endpoint with freshly generated keys, and an RFC 7662
introspection endpoint, both counting what they are asked."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

ISSUER = "https://issuer.test/"
AUDIENCE = "http://127.0.0.1/mcp"
INTROSPECTION_CLIENT = ("gateway", "gateway-secret")


@dataclass
class SigningKey:
    """One key pair the issuer signs with."""

    algorithm: str
    private: Any
    kid: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    @classmethod
    def rsa(cls) -> SigningKey:
        return cls("RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @classmethod
    def ec(cls) -> SigningKey:
        return cls("ES256", ec.generate_private_key(ec.SECP256R1()))

    def jwk(self) -> dict[str, Any]:
        convert = RSAAlgorithm if self.algorithm.startswith("RS") else ECAlgorithm
        public = convert.to_jwk(self.private.public_key(), as_dict=True)
        return {**public, "kid": self.kid, "use": "sig", "alg": self.algorithm}

    def public_pem(self) -> str:
        return (
            self.private.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )


@dataclass
class Issuer:
    """Mints tokens and serves its public keys; `rotate()` replaces them."""

    keys: list[SigningKey] = field(default_factory=lambda: [SigningKey.rsa(), SigningKey.ec()])
    jwks_requests: int = 0
    jwks_up: bool = True
    """False: the JWKS endpoint answers 503 (an identity provider that is down)."""
    introspections: int = 0
    token_requests: int = 0
    token_lifetime: int = 600
    opaque: dict[str, dict[str, Any]] = field(default_factory=dict)
    base_url: str = ""

    @property
    def jwks_uri(self) -> str:
        return f"{self.base_url}/jwks.json"

    @property
    def introspection_url(self) -> str:
        return f"{self.base_url}/introspect"

    @property
    def token_url(self) -> str:
        return f"{self.base_url}/token"

    def rotate(self) -> None:
        self.keys = [SigningKey.rsa(), SigningKey.ec()]

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "ada", "scope": "tools notes", "iat": now, "exp": now + 600}
        claims.update(overrides)
        return {key: value for key, value in claims.items() if value is not None}

    def token(self, key: SigningKey | None = None, headers: dict[str, Any] | None = None, **claims: Any) -> str:
        key = key or self.keys[0]
        return jwt.encode(
            self.claims(**claims), key.private, algorithm=key.algorithm, headers={"kid": key.kid, **(headers or {})}
        )

    def opaque_token(self, **answer: Any) -> str:
        token = uuid.uuid4().hex
        self.opaque[token] = {"active": True, "sub": "ada", "scope": "tools", "exp": int(time.time()) + 600, **answer}
        return token

    def app(self) -> Starlette:
        async def jwks(request: Request) -> JSONResponse:
            self.jwks_requests += 1
            if not self.jwks_up:
                return JSONResponse({"error": "unavailable"}, status_code=503)
            return JSONResponse({"keys": [key.jwk() for key in self.keys]})

        async def introspect(request: Request) -> JSONResponse:
            self.introspections += 1
            expected = base64.b64encode(":".join(INTROSPECTION_CLIENT).encode()).decode()
            if request.headers.get("authorization") != f"Basic {expected}":
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            form = await request.form()
            return JSONResponse(self.opaque.get(str(form.get("token")), {"active": False}))

        async def token(request: Request) -> JSONResponse:
            """The client-credentials grant, for the gateway's own client (`INTROSPECTION_CLIENT`)."""
            self.token_requests += 1
            expected = base64.b64encode(":".join(INTROSPECTION_CLIENT).encode()).decode()
            form = await request.form()
            if request.headers.get("authorization") != f"Basic {expected}":
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            if form.get("grant_type") != "client_credentials":
                return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
            audience = str(form.get("resource") or form.get("audience") or "upstream")  # (RFC 8707, or Auth0's)
            claims = self.claims(sub=INTROSPECTION_CLIENT[0], scope=str(form.get("scope", "")), aud=audience)
            claims["exp"] = int(time.time()) + self.token_lifetime
            access = jwt.encode(claims, self.keys[0].private, algorithm="RS256", headers={"kid": self.keys[0].kid})
            return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": self.token_lifetime})

        return Starlette(
            routes=[
                Route("/jwks.json", jwks),
                Route("/introspect", introspect, methods=["POST"]),
                Route("/token", token, methods=["POST"]),
            ]
        )


def _part(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def unsigned(claims: dict[str, Any], headers: dict[str, Any]) -> str:
    """A token with any header and payload, signed with nothing (`alg: none`-style forgeries)."""
    return f"{_part(headers)}.{_part(claims)}."


def hs256_with_public_key(issuer: Issuer) -> str:
    """A token HMAC-signed with the issuer's public RSA key as the secret (the algorithm-confusion
    forgery: a verifier that lets the token pick HS256 would check it with that same key)."""
    header = {"alg": "HS256", "typ": "JWT", "kid": issuer.keys[0].kid}
    signing_input = f"{_part(header)}.{_part(issuer.claims())}"
    signature = hmac.new(issuer.keys[0].public_pem().encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"
