"""Verified callers: the cost of verifying a bearer token, and of per-caller tool lists.

Rows (µs per operation, in-process, interleaved in the same rounds):
- RS256 and ES256 JWT verification of a token seen for the first time (signature, claims),
  toolweave's `JWTVerifier` beside FastMCP 4.1.2's `JWTVerifier` on the same tokens;
- a token seen again (toolweave remembers verified tokens until `exp`);
- a `tools/list` view for a caller of a 1,000-tool catalog with three `Authorize` rules (one cached
  look-up per grant) against the same catalog with no rules.

And over real HTTP on 127.0.0.1 (uvicorn, a 2026-era `tools/call` per request, client and server
in one process): a call with no auth against a verified call (`JWTVerifier` on a local JWKS
endpoint, the token cached after its first use), and a verified `tools/list` of a 100-tool
catalog with three `Authorize` rules against the same catalog without rules.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
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
    return rows + await _over_http(quick)


async def _over_http(quick: bool) -> list[Row]:
    """Verified requests against open ones, each a real HTTP round trip."""
    from tests.auth.issuer import AUDIENCE, Issuer
    from tests.auth.issuer import ISSUER as TEST_ISSUER
    from tests.serving import served, serving

    repeat, number = (3, 20) if quick else (7, 100)
    issuer = Issuer()
    with served(issuer.app()) as issuer_url:
        issuer.base_url = issuer_url
        verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=TEST_ISSUER, audience=AUDIENCE)
        token = issuer.token(scope="a")
        apps = {
            "open": _small_catalog(False).http_app(),
            "verified": _small_catalog(False).http_app(auth=verifier),
            "gated": _small_catalog(True).http_app(auth=verifier),
        }
        async with (
            serving(apps["open"]) as open_url,
            serving(apps["verified"]) as verified_url,
            serving(apps["gated"]) as gated_url,
            httpx2.AsyncClient() as http,
        ):
            bearer = {"authorization": f"Bearer {token}"}
            rows_of: dict[str, Callable[[], Awaitable[object]]] = {
                HTTP_OPEN: lambda: _request(http, open_url, "tools/call", {}),
                HTTP_VERIFIED: lambda: _request(http, verified_url, "tools/call", bearer),
                HTTP_LIST: lambda: _request(http, verified_url, "tools/list", bearer),
                HTTP_LIST_RULES: lambda: _request(http, gated_url, "tools/list", bearer),
            }
            for check in rows_of.values():
                await check()  # each answers 200 with its result (raises otherwise); the token is cached
            times = await interleaved_us(rows_of, repeat=repeat, number=number, warmup=20)
    return [
        Row(HTTP_GROUP, HTTP_OPEN, times[HTTP_OPEN]),
        Row(HTTP_GROUP, HTTP_VERIFIED, times[HTTP_VERIFIED], baseline=HTTP_OPEN, target="+ a cached look-up"),
        Row(HTTP_GROUP, HTTP_LIST, times[HTTP_LIST]),
        Row(HTTP_GROUP, HTTP_LIST_RULES, times[HTTP_LIST_RULES], baseline=HTTP_LIST, target="+ one cached look-up"),
    ]


HTTP_GROUP = "verified callers over HTTP on 127.0.0.1 (µs/request)"
HTTP_OPEN = "tools/call, no auth"
HTTP_VERIFIED = "tools/call, verified JWT (cached after first use)"
HTTP_LIST = "tools/list (100 tools), verified, no rules"
HTTP_LIST_RULES = "tools/list (100 tools), verified, 3 rules"


def _small_catalog(rules: bool) -> Server:
    server = Server("http")
    for n in range(100):
        server.add_tool(lambda x=0: x, name=f"tool_{n}")
    if rules:
        server.add_transform(Authorize(scopes=["a"]), tools="tool_1*")
        server.add_transform(Authorize(scopes=["b"]), tools="tool_2*")
        server.add_transform(Authorize(claims={"tenant": "acme"}), tools="tool_3*")
    return server


async def _request(http: httpx2.AsyncClient, url: str, method: str, headers: dict[str, str]) -> Any:
    params: dict[str, Any] = {"_meta": _MODERN_META}
    if method == "tools/call":
        params |= {"name": "tool_0", "arguments": {"x": 1}}
    response = await http.post(
        url + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={**_MODERN_HEADERS, **headers, "mcp-method": method}
        | ({"mcp-name": "tool_0"} if method == "tools/call" else {}),
    )
    response.raise_for_status()
    answer = response.json()
    if "result" not in answer:
        raise RuntimeError(f"{method} failed: {answer}")
    return answer


_MODERN_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
}
_MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
