"""Verified callers: the cost of verifying a bearer token, and of per-caller tool lists.

Rows (µs per operation, in-process, interleaved in the same rounds):
- RS256 and ES256 JWT verification of a token seen for the first time (signature, claims),
  toolweave's `JWTVerifier` beside FastMCP 4.1.2's `JWTVerifier` on the same tokens;
- a token seen again (toolweave remembers verified tokens until `exp`);
- a `tools/list` view for a caller of a 1,000-tool catalog with three `Authorize` rules (one cached
  look-up per grant) against the same catalog with no rules.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from benchmarks.bench_middleware import interleaved_us
from benchmarks.timing import Row
from toolweave import AuthInfo, Authorize, Server
from toolweave.auth import JWTVerifier

GROUP = "verified callers (µs/operation)"
ISSUER, AUDIENCE = "https://issuer.bench/", "https://mcp.bench/mcp"


def _keys(algorithm: str) -> tuple[Any, str]:
    private = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if algorithm == "RS256"
        else ec.generate_private_key(ec.SECP256R1())
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public.decode()


def _tokens(private: Any, algorithm: str, count: int) -> list[str]:
    now = int(time.time())
    return [
        jwt.encode(
            {"iss": ISSUER, "aud": AUDIENCE, "sub": f"user-{n}", "scope": "mcp", "iat": now, "exp": now + 3600},
            private,
            algorithm=algorithm,
        )
        for n in range(count)
    ]


def _fresh(verify: Callable[[str], Awaitable[Any]], tokens: list[str]) -> Callable[[], Awaitable[Any]]:
    """Verify the next token of a long list: each is seen once (until the list wraps)."""
    upcoming = itertools.cycle(tokens)
    return lambda: verify(next(upcoming))


def _fastmcp(public: str, algorithm: str) -> Any:
    from fastmcp.server.auth.providers.jwt import JWTVerifier as FastMCPVerifier

    return FastMCPVerifier(public_key=public, issuer=ISSUER, audience=AUDIENCE, algorithm=algorithm)


def _catalog(rules: bool) -> Server:
    server = Server("big")
    for n in range(1000):
        server.add_tool(lambda x: x, name=f"tool_{n}")
    if rules:
        server.add_transform(Authorize(scopes=["a"]), tools="tool_1*")
        server.add_transform(Authorize(scopes=["b"]), tools="tool_2*")
        server.add_transform(Authorize(claims={"tenant": "acme"}), tools="tool_3*")
    return server


async def collect(quick: bool) -> list[Row]:
    repeat, number = (3, 50) if quick else (7, 400)
    count = repeat * number * 4 + 1000  # never a repeat within one run: every verification is a first
    rows: list[Row] = []
    for algorithm in ("RS256", "ES256"):
        private, public = _keys(algorithm)
        tokens = _tokens(private, algorithm, count)
        ours = JWTVerifier(public_key=public, issuer=ISSUER, audience=AUDIENCE, algorithms=[algorithm])
        theirs = _fastmcp(public, algorithm)
        again = tokens[0]
        await ours.verify(again)
        first, seen, fastmcp = (
            f"toolweave: {algorithm} token, first time",
            f"toolweave: {algorithm} token, seen before",
            f"FastMCP: {algorithm} token",
        )
        times = await interleaved_us(
            {
                first: _fresh(ours.verify, tokens[1::2]),
                seen: _fresh(ours.verify, [again]),
                fastmcp: _fresh(theirs.verify_token, tokens[::2]),
            },
            repeat=repeat,
            number=number,
            warmup=20,
        )
        target = "< 30 µs" if algorithm == "RS256" else ""
        rows.append(Row(GROUP, first, times[first], baseline=fastmcp, target=target))
        rows.append(Row(GROUP, seen, times[seen], baseline=fastmcp))
        rows.append(Row(GROUP, fastmcp, times[fastmcp]))
    gated, open_ = _catalog(True).catalog, _catalog(False).catalog
    caller = AuthInfo(subject="ada", scopes=("a",), claims={"tenant": "acme"}, token="verified-token")
    plain, ruled = "toolweave: tools/list view, no rules (1,000 tools)", "toolweave: tools/list view, 3 rules"

    async def view_gated() -> Any:
        return gated.view("tools", gated.tools, caller)

    async def view_open() -> Any:
        return open_.view("tools", open_.tools, caller)

    times = await interleaved_us({plain: view_open, ruled: view_gated}, repeat=repeat, number=number * 10)
    rows.append(Row(GROUP, plain, times[plain]))
    rows.append(Row(GROUP, ruled, times[ruled], baseline=plain, target="one cached look-up per grant"))
    return rows
