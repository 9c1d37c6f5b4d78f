"""Stateful middleware on replicas sharing one real Redis: one rate limit, one cache, one circuit, one pool."""

from __future__ import annotations

import time

import anyio
import pytest

from tests.store.redis_server import RedisServer
from tests.store.replicas import Upstream, replica
from toolweave import Server, ToolAnnotations, ToolError
from toolweave.middleware import Cache, CircuitBreaker, ConcurrencyLimit, RateLimit, Timeout
from toolweave.store import RedisStore


async def test_a_rate_limit_of_n_allows_exactly_n_calls_across_two_replicas(redis: RedisServer) -> None:
    one, two = replica(redis.url, RateLimit(rate=0.001, burst=5)), replica(redis.url, RateLimit(rate=0.001, burst=5))
    async with one, two:
        results = [await (one if i % 2 else two).call_tool("lookup", {"q": "x"}) for i in range(10)]
    allowed = [result for result in results if not result.is_error]
    assert len(allowed) == 5
    assert all("Rate limit exceeded for tool 'lookup'" in result.text for result in results if result.is_error)


async def test_concurrent_calls_take_tokens_atomically(redis: RedisServer) -> None:
    servers = [replica(redis.url, RateLimit(rate=0.001, burst=7)) for _ in range(3)]
    outcomes: list[bool] = []
    async with servers[0], servers[1], servers[2]:

        async def call(server: object) -> None:
            result = await servers[hash(server) % 3].call_tool("lookup", {"q": "x"})
            outcomes.append(not result.is_error)

        async with anyio.create_task_group() as tasks:
            for index in range(30):
                tasks.start_soon(call, index)
    assert outcomes.count(True) == 7


async def test_per_tool_buckets_are_separate(redis: RedisServer) -> None:
    server = replica(redis.url, RateLimit(rate=0.001, burst=1, per_tool=True))
    async with server:
        first = await server.call_tool("lookup", {"q": "x"})
        other = await server.call_tool("flaky")
        again = await server.call_tool("lookup", {"q": "x"})
    assert (first.is_error, other.is_error, again.is_error) == (False, False, True)


async def test_a_cache_entry_written_through_one_replica_is_a_hit_through_the_other(redis: RedisServer) -> None:
    upstream = Upstream()
    one = replica(redis.url, Cache(ttl=60), upstream=upstream)
    two = replica(redis.url, Cache(ttl=60), upstream=upstream)
    async with one, two:
        first = await one.call_tool("lookup", {"q": "a"})
        second = await two.call_tool("lookup", {"q": "a"})
        other = await two.call_tool("lookup", {"q": "b"})
    assert (first.text, second.text, other.text) == ("a#1", "a#1", "b#2")
    assert upstream.calls == 2


async def test_shared_cache_entries_expire_after_their_ttl(redis: RedisServer) -> None:
    upstream = Upstream()
    server = replica(redis.url, Cache(ttl=0.2), upstream=upstream)
    async with server:
        await server.call_tool("lookup", {"q": "a"})
        await anyio.sleep(0.4)
        again = await server.call_tool("lookup", {"q": "a"})
    assert again.text == "a#2"


async def test_results_larger_than_the_cap_are_not_stored(redis: RedisServer) -> None:
    upstream = Upstream()
    one = replica(redis.url, Cache(ttl=60), upstream=upstream, max_value_bytes=10)
    two = replica(redis.url, Cache(ttl=60), upstream=upstream, max_value_bytes=10)
    async with one, two:
        await one.call_tool("lookup", {"q": "a"})
        second = await two.call_tool("lookup", {"q": "a"})
    assert second.text == "a#2"


async def test_errors_are_not_stored_in_the_shared_cache(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.failing = True
    server = replica(redis.url, Cache(ttl=60, only_safe=False), upstream=upstream)
    async with server:
        await server.call_tool("flaky")
        await server.call_tool("flaky")
    assert upstream.calls == 2


@pytest.mark.parametrize("shared", [False, True], ids=["memory", "redis"])
async def test_concurrent_misses_for_one_key_make_one_upstream_call(redis: RedisServer, shared: bool) -> None:
    from toolweave import Server

    upstream = Upstream()
    upstream.delay = 0.2
    servers = [replica(redis.url, Cache(ttl=60), upstream=upstream) for _ in range(2)]
    if not shared:
        servers = [Server("gw", middleware=[Cache(ttl=60)])]
        servers[0].mount(replica(redis.url, upstream=upstream), prefix=None)  # no shared state anywhere
    texts: list[str] = []
    async with servers[0], servers[-1]:

        async def call(index: int) -> None:
            texts.append((await servers[index % len(servers)].call_tool("lookup", {"q": "a"})).text)

        async with anyio.create_task_group() as tasks:
            for index in range(8):
                tasks.start_soon(call, index)
    assert upstream.calls == 1
    assert texts == ["a#1"] * 8


async def test_a_circuit_opened_by_failures_on_one_replica_rejects_on_the_other(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.failing = True
    one = replica(redis.url, CircuitBreaker(failures=2, reset_after=30), upstream=upstream)
    two = replica(redis.url, CircuitBreaker(failures=2, reset_after=30), upstream=upstream)
    async with one, two:
        await one.call_tool("flaky")
        await one.call_tool("flaky")
        rejected = await two.call_tool("flaky")
    assert upstream.calls == 2
    assert rejected.is_error and "Circuit open for tool 'flaky'" in rejected.text


async def test_after_the_pause_one_replica_probes_and_a_success_closes_the_circuit_everywhere(
    redis: RedisServer,
) -> None:
    upstream = Upstream()
    upstream.failing = True
    one = replica(redis.url, CircuitBreaker(failures=1, reset_after=0.3), upstream=upstream)
    two = replica(redis.url, CircuitBreaker(failures=1, reset_after=0.3), upstream=upstream)
    async with one, two:
        await one.call_tool("flaky")
        await anyio.sleep(0.4)
        upstream.failing = False
        probe = await two.call_tool("flaky")
        after = await one.call_tool("flaky")
    assert (probe.text, after.text) == ("ok", "ok")


async def test_a_shared_concurrency_limit_counts_calls_on_every_replica(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.delay = 0.3
    servers = [replica(redis.url, ConcurrencyLimit(2, wait=0, shared=True), upstream=upstream) for _ in range(2)]
    outcomes: list[bool] = []
    async with servers[0], servers[1]:

        async def call(index: int) -> None:
            result = await servers[index % 2].call_tool("lookup", {"q": str(index)})
            outcomes.append(not result.is_error)

        async with anyio.create_task_group() as tasks:
            for index in range(6):
                tasks.start_soon(call, index)
        later = await servers[0].call_tool("lookup", {"q": "later"})
    assert outcomes.count(True) == 2
    assert not later.is_error  # leases were released


async def test_a_lease_held_by_a_replica_that_died_expires(redis: RedisServer) -> None:
    from toolweave.store import RedisStore

    store = RedisStore(redis.url, timeout=5)
    try:
        leases = store.leases("gw:0", size=1, lease=0.3)
        assert await leases.acquire("dead-replica")
        assert not await leases.acquire("live-replica")
        await anyio.sleep(0.4)
        assert await leases.acquire("live-replica")
    finally:
        await store.close()


async def test_when_the_first_of_concurrent_misses_raises_the_others_call_again() -> None:
    from toolweave import Server, ToolAnnotations

    calls = 0
    server = Server("gw", middleware=[Cache(ttl=60)])

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def lookup(q: str) -> str:
        nonlocal calls
        calls += 1
        await anyio.sleep(0.1)
        if calls == 1:
            raise ConnectionError("upstream down")
        return f"{q}#{calls}"

    texts: list[str] = []

    async def call() -> None:
        texts.append((await server.call_tool("lookup", {"q": "a"})).text)

    async with anyio.create_task_group() as tasks:
        for _ in range(4):
            tasks.start_soon(call)
    assert calls == 2  # the failed leader, then one new leader for the three that waited
    assert sorted(texts)[1:] == ["a#2", "a#2", "a#2"]


async def test_a_half_open_circuit_lets_one_probe_through_across_replicas(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.failing = True
    one = replica(redis.url, CircuitBreaker(failures=1, reset_after=0.2), upstream=upstream)
    two = replica(redis.url, CircuitBreaker(failures=1, reset_after=0.2), upstream=upstream)
    async with one, two:
        await one.call_tool("flaky")
        await anyio.sleep(0.3)
        upstream.failing = False
        upstream.delay = 0.0
        results: list[str] = []

        async def slow_probe() -> None:
            results.append((await one.call_tool("lookup", {"q": "p"})).text)

        # `lookup` shares the circuit (one per breaker); while its probe runs, the other replica is refused
        upstream.delay = 0.3
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(slow_probe)
            await anyio.sleep(0.1)
            refused = await two.call_tool("flaky")
    assert "a probe call is in progress" in refused.text
    assert results == ["p#2"]


async def test_a_cancelled_probe_lets_the_next_call_probe_on_every_replica(redis: RedisServer) -> None:
    """The probe's caller went away: its flag stayed until `reset_after` (30 s by default), and
    every replica turned every call away as "a probe call is in progress" meanwhile."""
    upstream = Upstream()
    upstream.failing = True
    one = replica(redis.url, CircuitBreaker(failures=1, reset_after=2), upstream=upstream)
    two = replica(redis.url, CircuitBreaker(failures=1, reset_after=2), upstream=upstream)
    async with one, two:
        await one.call_tool("flaky")
        await anyio.sleep(2.1)  # half-open
        upstream.failing, upstream.delay = False, 5.0
        with anyio.move_on_after(0.2) as gone:
            await one.call_tool("lookup", {"q": "p"})  # the probe, cancelled by its caller
        assert gone.cancelled_caught
        upstream.delay = 0.0
        probe = await two.call_tool("lookup", {"q": "again"})
        after = await one.call_tool("flaky")
    assert probe.text == "again#3" and after.text == "ok"


async def test_a_shared_concurrency_limit_lets_a_waiting_call_in_when_a_slot_frees(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.delay = 0.3
    servers = [replica(redis.url, ConcurrencyLimit(1, wait=5, shared=True), upstream=upstream) for _ in range(2)]
    results: list[str] = []
    async with servers[0], servers[1]:

        async def call(index: int) -> None:
            results.append((await servers[index].call_tool("lookup", {"q": str(index)})).text)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, 0)
            await anyio.sleep(0.1)
            tasks.start_soon(call, 1)
    assert sorted(results) == ["0#1", "1#2"]


async def test_a_lease_is_renewed_while_its_call_runs_past_it(redis: RedisServer) -> None:
    """A call lasting four leases keeps its slot: another replica is refused all along, then let in."""
    upstream = Upstream()
    upstream.delay = 1.2
    one, two = (
        replica(redis.url, ConcurrencyLimit(1, wait=0, shared=True, lease=0.3), upstream=upstream) for _ in range(2)
    )
    refused: list[bool] = []
    async with one, two, anyio.create_task_group() as tasks:
        tasks.start_soon(one.call_tool, "lookup", {"q": "long"})
        for _ in range(3):
            await anyio.sleep(0.35)  # past one more lease each time
            refused.append((await two.call_tool("flaky")).is_error)
        await anyio.sleep(1.0)  # the long call ended and released its lease
        after = await two.call_tool("flaky")
    assert refused == [True, True, True]
    assert after.text == "ok"


async def test_a_late_value_is_a_failure_to_the_shared_circuit_and_is_not_stored_in_the_shared_cache(
    redis: RedisServer,
) -> None:
    """A `Timeout` outside: the client is told the call timed out, so its late value must neither
    count as a success nor be served from the shared cache to the next call."""
    breaker, runs = CircuitBreaker(failures=2, reset_after=30), []
    server = Server("gw", store=RedisStore(redis.url, timeout=2.0), middleware=[Timeout(0.05), breaker, Cache(ttl=60)])

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def report() -> str:
        runs.append(1)
        time.sleep(0.1)  # noqa: ASYNC251 - blocks the loop past the deadline on purpose
        return "late"

    async with server:
        texts = [(await server.call_tool("report", {})).text for _ in range(3)]
    assert texts[:2] == ["Tool 'report' timed out after 0.05s"] * 2 and len(runs) == 2
    assert texts[2].startswith("Circuit open for tool 'report'")


async def test_replicas_waiting_for_an_entry_that_never_came_compute_it_at_once_not_each_in_turn(
    redis: RedisServer,
) -> None:
    """The first replica's call ended with an error result (not stored): each waiting replica
    took the lead in turn and the others waited for it again, so the last of four waited four calls."""
    running, most = 0, 0

    def failing_replica() -> Server:
        server = Server("gw", store=RedisStore(redis.url, timeout=2.0), middleware=[Cache(ttl=60)])

        @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
        async def lookup(q: str) -> str:
            nonlocal running, most
            running += 1
            most = max(most, running)
            try:
                await anyio.sleep(0.5)
            finally:
                running -= 1
            raise ToolError("upstream says no")

        return server

    servers = [failing_replica() for _ in range(4)]
    async with servers[0], servers[1], servers[2], servers[3], anyio.create_task_group() as tasks:
        for server in servers:
            tasks.start_soon(server.call_tool, "lookup", {"q": "a"})
    assert most == 3  # the first alone, then the three that waited for it, together
