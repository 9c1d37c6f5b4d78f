"""Two toolweave HTTP servers on two ports sharing one real Redis, driven by the official `mcp` client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import mcp.types as mt
from mcp import Client

from tests.serving import serving
from tests.store.redis_server import RedisServer
from tests.store.replicas import Upstream, replica
from toolweave import Server
from toolweave.middleware import Cache, CircuitBreaker, Middleware, RateLimit


@asynccontextmanager
async def two_replicas(
    redis: RedisServer, *middleware: type[Middleware] | Any, upstream: Upstream | None = None
) -> AsyncIterator[tuple[tuple[Server, Server], tuple[str, str]]]:
    """Two gateways (each its own middleware objects, made by calling `middleware`) on two ports."""
    upstream = upstream or Upstream()
    servers = tuple(replica(redis.url, *(make() for make in middleware), upstream=upstream) for _ in range(2))
    async with AsyncExitStack() as stack:
        urls = [await stack.enter_async_context(serving(server.http_app())) for server in servers]
        yield (servers[0], servers[1]), (f"{urls[0]}/mcp", f"{urls[1]}/mcp")


async def test_a_rate_limit_of_n_allows_exactly_n_calls_across_two_http_servers(redis: RedisServer) -> None:
    async with (
        two_replicas(redis, lambda: RateLimit(rate=0.001, burst=4)) as (_, urls),
        Client(urls[0]) as first,
        Client(urls[1]) as second,
    ):
        results = [await (first, second)[i % 2].call_tool("lookup", {"q": "x"}) for i in range(10)]
    assert [result.is_error for result in results].count(False) == 4
    assert all("Rate limit exceeded" in result.content[0].text for result in results[4:])


async def test_a_cache_entry_written_through_one_http_server_is_a_hit_through_the_other(redis: RedisServer) -> None:
    upstream = Upstream()
    async with (
        two_replicas(redis, lambda: Cache(ttl=60), upstream=upstream) as (_, urls),
        Client(urls[0]) as first,
        Client(urls[1]) as second,
    ):
        written = await first.call_tool("lookup", {"q": "a"})
        read = await second.call_tool("lookup", {"q": "a"})
    assert written.content[0].text == read.content[0].text == "a#1"
    assert upstream.calls == 1


async def test_a_circuit_opened_through_one_http_server_rejects_through_the_other(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.failing = True
    async with (
        two_replicas(redis, lambda: CircuitBreaker(failures=2, reset_after=60), upstream=upstream) as (_, urls),
        Client(urls[0]) as first,
        Client(urls[1]) as second,
    ):
        for _ in range(2):
            await first.call_tool("flaky", {})
        rejected = await second.call_tool("flaky", {})
    assert upstream.calls == 2
    assert rejected.is_error and "Circuit open for tool 'flaky'" in rejected.content[0].text


async def test_disable_on_one_server_sends_list_changed_to_a_client_of_the_other(redis: RedisServer) -> None:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            changed.set()

    async with (
        two_replicas(redis) as ((one, _), urls),
        Client(urls[1], mode="legacy", message_handler=on_message) as watcher,
    ):
        before = [tool.name for tool in (await watcher.list_tools()).tools]
        one.disable("lookup")
        with anyio.fail_after(5):
            await changed.wait()
        after = [tool.name for tool in (await watcher.list_tools()).tools]
        one.enable("lookup")
        with anyio.fail_after(5):
            while "lookup" not in [tool.name for tool in (await watcher.list_tools()).tools]:  # noqa: ASYNC110
                await anyio.sleep(0.05)
    assert (before, after) == (["lookup", "flaky"], ["flaky"])


async def test_broadcast_changed_reaches_the_clients_of_every_replica(redis: RedisServer) -> None:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            changed.set()

    async with two_replicas(redis) as ((one, _), urls), Client(urls[1], mode="legacy", message_handler=on_message):
        # (a notification sent before the client's listening stream is open is not delivered, as
        # with one server: announce until it is, within a bound)
        with anyio.fail_after(5):
            while not changed.is_set():
                one.broadcast_changed()
                with anyio.move_on_after(0.25):
                    await changed.wait()


async def test_calls_get_the_stated_policy_when_redis_dies_mid_run_and_recover(redis: RedisServer) -> None:
    upstream = Upstream()
    async with (
        two_replicas(
            redis,
            lambda: RateLimit(rate=0.001, burst=1, on_store_error="reject"),
            lambda: Cache(ttl=60),
            upstream=upstream,
        ) as (_, urls),
        Client(urls[0]) as first,
        Client(urls[1]) as second,
    ):
        assert not (await first.call_tool("lookup", {"q": "a"})).is_error
        redis.stop()
        with anyio.fail_after(5):
            during = [await client.call_tool("lookup", {"q": "a"}) for client in (first, second)]
        redis.start()
        with anyio.fail_after(10):
            while True:
                redis.flush()
                results = [await client.call_tool("lookup", {"q": "b"}) for client in (first, second)]
                if [result.is_error for result in results] == [False, True]:
                    break
                await anyio.sleep(0.1)
    assert all("cannot be checked right now" in result.content[0].text for result in during)
