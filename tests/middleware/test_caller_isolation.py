"""Per-caller policies over real HTTP: a client cannot pick its own caller key, and a cached result
never crosses an injected tenant."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import mcp.types as mt
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.acceptance.cli_helpers import FIXTURES
from tests.conftest import subprocess_env
from tests.serving import serving, toolweave_served
from toolweave import Context, Server, Tool
from toolweave.middleware import Cache, RateLimit
from toolweave.transforms import FromHeader, InjectArgs


def tenant_server() -> Server:
    server = Server("bank", middleware=[Cache(ttl=60)])

    def balance(account: str, tenant: str) -> str:
        """The balance of an account."""
        return f"balance of {tenant}/{account}"

    def by_caller(account: str, who: str) -> str:
        """A result that depends on a function of the request."""
        return f"{who}/{account}"

    hints = {"readOnlyHint": True, "idempotentHint": True}
    server.add_tool(
        Tool.from_function(balance, annotations=hints).with_transforms(InjectArgs(tenant=FromHeader("x-tenant")))
    )
    server.add_tool(
        Tool.from_function(by_caller, annotations=hints).with_transforms(
            InjectArgs(who=lambda ctx: ctx.headers.get("x-who", "?"))
        )
    )
    return server


async def _call(url: str, tool: str, headers: dict[str, str], mode: str = "auto") -> str:
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        result = await client.call_tool(tool, {"account": "main"})
    return str(result.content[0].text)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_cached_result_never_crosses_an_injected_tenant(mode: str) -> None:
    server = tenant_server()
    async with serving(server.http_app()) as base:
        url = base + "/mcp"
        first = await _call(url, "balance", {"x-tenant": "acme-corp"}, mode)
        other = await _call(url, "balance", {"x-tenant": "evil-corp"}, mode)
        again = await _call(url, "balance", {"x-tenant": "acme-corp"}, mode)
    assert (first, other, again) == ("balance of acme-corp/main", "balance of evil-corp/main", first)
    cache = server.middleware[0]
    assert isinstance(cache, Cache) and (cache.hits, cache.misses) == (1, 2)


async def test_a_tool_injecting_a_function_of_the_request_is_never_cached() -> None:
    server = tenant_server()
    assert [layer.name for layer in server.catalog.get("by_caller").chain] == []
    async with serving(server.http_app()) as base:
        ada = await _call(base + "/mcp", "by_caller", {"x-who": "ada"})
        eve = await _call(base + "/mcp", "by_caller", {"x-who": "eve"})
    assert (ada, eve) == ("ada/main", "eve/main")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_fresh_client_name_per_request_does_not_escape_a_rate_limit(mode: str) -> None:
    limit = RateLimit(rate=0.001, burst=3)
    server = Server("limited", middleware=[limit])

    @server.tool
    def ping(ctx: Context) -> str:
        return "pong"

    outcomes: list[bool] = []
    async with serving(server.http_app()) as base:
        for n in range(8):
            info = mt.Implementation(name=f"client-{n}", version="1")
            async with Client(base + "/mcp", client_info=info, mode=mode) as client:
                outcomes.append((await client.call_tool("ping", {})).is_error)
    assert outcomes == [False] * 3 + [True] * 5
    assert limit.rejected == 5


def test_the_caller_key_of_an_http_request_is_its_peer_address() -> None:
    import anyio

    seen: dict[str, Any] = {}
    server = Server("who")

    @server.tool
    def whoami(ctx: Context) -> str:
        seen["peer"] = ctx.peer
        return "ok"

    async def main() -> None:
        async with serving(server.http_app()) as base, Client(base + "/mcp") as client:
            await client.call_tool("whoami", {})

    anyio.run(main)
    assert seen["peer"] == "127.0.0.1"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_repeated_injected_header_refuses_the_call_and_the_server_keeps_serving(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = tenant_server()
    repeated = [("x-tenant", "acme-corp"), ("x-tenant", "evil-corp")]
    async with serving(server.http_app()) as base:
        async with (
            httpx2.AsyncClient(headers=repeated) as http,
            Client(streamable_http_client(base + "/mcp", http_client=http), mode=mode) as client,
        ):
            refused = await client.call_tool("balance", {"account": "main"})
        served = await _call(base + "/mcp", "balance", {"x-tenant": "acme-corp"}, mode)
    assert refused.is_error
    assert refused.content[0].text == "The HTTP header 'x-tenant' was sent more than once; send it once"
    assert served == "balance of acme-corp/main"
    assert "'x-tenant', which it sent more than once" in caplog.text


async def test_a_repeated_header_nobody_reads_does_not_refuse_the_call() -> None:
    server = tenant_server()
    headers = [("x-tenant", "acme-corp"), ("x-note", "one"), ("x-note", "two")]
    async with (
        serving(server.http_app()) as base,
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(base + "/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("balance", {"account": "main"})
    assert result.content[0].text == "balance of acme-corp/main"


@contextmanager
def toolweave_serve(**env: str) -> Iterator[str]:
    """`toolweave serve` over HTTP (a rate limit of 3 calls per caller), as an operator runs it."""
    environment = subprocess_env(**env)
    if "FORWARDED_ALLOW_IPS" not in env:
        environment.pop("FORWARDED_ALLOW_IPS", None)
    with toolweave_served(FIXTURES / "rate_limited.yaml", env=environment) as server:
        yield f"{server.url}/mcp"


async def _limited_calls(url: str, forwarded_for: list[str], mode: str = "auto") -> list[bool]:
    outcomes = []
    for address in forwarded_for:
        async with (
            httpx2.AsyncClient(headers={"x-forwarded-for": address}) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            outcomes.append((await client.call_tool("whisper", {"text": "hi"})).is_error)
    return outcomes


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_forwarded_for_header_does_not_choose_the_caller_unless_the_operator_trusts_it(mode: str) -> None:
    with toolweave_serve() as url:
        outcomes = await _limited_calls(url, [f"198.51.100.{n}" for n in range(6)], mode)
    assert outcomes == [False] * 3 + [True] * 3  # one caller: the connection's address


async def test_a_proxy_the_operator_trusts_sets_the_caller() -> None:
    with toolweave_serve(FORWARDED_ALLOW_IPS="127.0.0.1") as url:
        outcomes = await _limited_calls(url, ["198.51.100.1"] * 4 + ["198.51.100.2"])
    assert outcomes == [False] * 3 + [True] + [False]  # one bucket per forwarded client
