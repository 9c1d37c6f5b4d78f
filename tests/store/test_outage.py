"""Redis killed mid-run: every use applies its stated policy at once (no hung call), and recovers."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
import pytest

from tests.conftest import free_port
from tests.store.redis_server import RedisServer
from tests.store.replicas import Upstream, replica
from toolweave import Server
from toolweave.middleware import Cache, CircuitBreaker, ConcurrencyLimit, RateLimit
from toolweave.store import RedisStore, StoreUnavailable

BOUND = 3.0  # seconds: far above the store's 0.5 s timeout, far below a hang


async def call(server: object, name: str, arguments: dict[str, str] | None = None) -> object:
    with anyio.fail_after(BOUND):
        return await server.call_tool(name, arguments or {})  # type: ignore[attr-defined]


async def until(check: object, seconds: float = 5.0) -> None:
    """Retry `check()` (True once shared state is back, or a call runs) until it holds."""
    with anyio.fail_after(seconds):
        while not await check():  # type: ignore[operator]  # noqa: ASYNC110 - state in another process or task
            await anyio.sleep(0.1)


async def test_an_unreachable_store_fails_fast_and_is_not_retried_at_once() -> None:
    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout=0.3, retry_after=5)
    try:
        started = anyio.current_time()
        with pytest.raises(StoreUnavailable):
            await store.run(lambda client: client.ping())
        with pytest.raises(StoreUnavailable):
            await store.run(lambda client: client.ping())
        assert store.down
        assert anyio.current_time() - started < BOUND
    finally:
        await store.close()


async def test_a_redis_that_does_not_answer_costs_one_call_the_timeout_not_every_call(redis: RedisServer) -> None:
    """After `retry_after`, one operation tries Redis again; the calls made meanwhile fail at once."""
    store = RedisStore(redis.url, timeout=0.4, retry_after=0.2)
    slow: list[float] = []

    async def ping() -> None:
        started = anyio.current_time()
        with pytest.raises(StoreUnavailable):
            await store.run(lambda client: client.ping())
        if anyio.current_time() - started > 0.2:
            slow.append(anyio.current_time() - started)

    try:
        await store.run(lambda client: client.ping())  # connected
        redis.pause()
        await ping()  # the outage begins: this one waits the timeout
        await anyio.sleep(0.3)  # past retry_after
        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(ping)
                await anyio.sleep(0.01)
    finally:
        redis.resume()
        await store.close()
    assert len(slow) == 2  # the first failure and the one retry, not the 20 calls made meanwhile


@pytest.mark.parametrize(
    ("policy", "allowed"), [("local", 2), ("allow", 5), ("reject", 0)], ids=["local", "allow", "reject"]
)
async def test_rate_limit_applies_its_outage_policy(redis: RedisServer, policy: str, allowed: int) -> None:
    server = replica(redis.url, RateLimit(rate=0.001, burst=2, on_store_error=policy))  # type: ignore[arg-type]
    async with server:
        await call(server, "lookup", {"q": "x"})  # connected, one token used
        redis.stop()
        results = [await call(server, "lookup", {"q": "x"}) for _ in range(5)]
    assert sum(not result.is_error for result in results) == allowed  # type: ignore[attr-defined]
    if policy == "reject":
        assert "cannot be checked right now" in results[0].text  # type: ignore[attr-defined]


async def test_rate_limit_is_shared_again_once_redis_returns(redis: RedisServer) -> None:
    one, two = replica(redis.url, RateLimit(rate=0.001, burst=1)), replica(redis.url, RateLimit(rate=0.001, burst=1))
    async with one, two:
        redis.stop()
        await call(one, "lookup", {"q": "x"})
        redis.start()

        async def shared() -> bool:
            redis.flush()
            first = await call(one, "lookup", {"q": "y"})
            second = await call(two, "lookup", {"q": "y"})
            return not first.is_error and second.is_error  # type: ignore[attr-defined]

        await until(shared)


async def test_the_cache_is_skipped_while_redis_is_down_and_used_again_after(redis: RedisServer) -> None:
    upstream = Upstream()
    server = replica(redis.url, Cache(ttl=60), upstream=upstream)
    async with server:
        redis.stop()
        down = [await call(server, "lookup", {"q": "a"}) for _ in range(2)]
        redis.start()

        async def cached() -> bool:
            before = upstream.calls
            await call(server, "lookup", {"q": "b"})
            await call(server, "lookup", {"q": "b"})
            return upstream.calls == before + 1 or upstream.calls == before

        await until(cached)
    assert [result.text for result in down] == ["a#1", "a#2"]  # type: ignore[attr-defined]


async def test_the_circuit_falls_back_to_this_process_while_redis_is_down(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.failing = True
    server = replica(redis.url, CircuitBreaker(failures=2, reset_after=30), upstream=upstream)
    async with server:
        redis.stop()
        results = [await call(server, "flaky") for _ in range(3)]
    assert upstream.calls == 2
    assert "Circuit open for tool 'flaky'" in results[2].text  # type: ignore[attr-defined]


async def test_a_shared_concurrency_limit_falls_back_to_this_process_pool(redis: RedisServer) -> None:
    upstream = Upstream()
    upstream.delay = 0.3
    server = replica(redis.url, ConcurrencyLimit(1, wait=0, shared=True), upstream=upstream)
    outcomes: list[bool] = []
    async with server:
        redis.stop()

        async def one(index: int) -> None:
            outcomes.append(not (await call(server, "lookup", {"q": str(index)})).is_error)  # type: ignore[attr-defined]

        async with anyio.create_task_group() as tasks:
            for index in range(3):
                tasks.start_soon(one, index)
    assert outcomes.count(True) == 1


async def test_calls_holding_shared_slots_count_in_the_pool_the_process_falls_back_to(redis: RedisServer) -> None:
    """A call that took its slot in Redis was not counted in this process's own pool: once Redis
    went, that pool let `limit` more calls in beside it (two at once under a limit of one)."""
    upstream = Upstream()
    upstream.delay = 3.0
    server = replica(redis.url, ConcurrencyLimit(1, wait=0, shared=True), upstream=upstream)
    async with server, anyio.create_task_group() as tasks:
        tasks.start_soon(call, server, "lookup", {"q": "long"})
        await running(upstream)
        redis.stop()
        refused = await call(server, "lookup", {"q": "x"})
        tasks.cancel_scope.cancel()
    assert refused.is_error and "Too many concurrent calls" in refused.text  # type: ignore[attr-defined]


async def test_a_call_running_while_redis_restarted_empty_still_holds_its_shared_slot(redis: RedisServer) -> None:
    """Its lease was lost with Redis's data; renewing it only if it still existed let another
    replica start a second call under a limit of one for as long as the first ran."""
    upstream = Upstream()
    upstream.delay = 3.0
    one = replica(redis.url, ConcurrencyLimit(1, wait=0, shared=True, lease=0.6), upstream=upstream)
    two = replica(redis.url, ConcurrencyLimit(1, wait=0, shared=True, lease=0.6))
    async with one, two, anyio.create_task_group() as tasks:
        tasks.start_soon(call, one, "lookup", {"q": "long"})
        await running(upstream)
        assert (await call(two, "lookup", {"q": "x"})).is_error  # type: ignore[attr-defined]
        redis.stop()
        redis.start()
        await anyio.sleep(1.0)  # a few renewals (every lease/3) after the restart
        refused = await call(two, "lookup", {"q": "x"})
        tasks.cancel_scope.cancel()
    assert refused.is_error and "Too many concurrent calls" in refused.text  # type: ignore[attr-defined]


async def running(upstream: Upstream) -> None:
    """Return once the long call runs its tool: it holds its slot (a fixed sleep was too short on
    a loaded machine)."""

    async def started() -> bool:
        return upstream.calls > 0

    await until(started, 10)


async def paused_during(redis: RedisServer, store: RedisStore, op: Callable[[], Awaitable[object]]) -> None:
    """Run `op` while Redis stops answering (it times out: what it sent runs once Redis resumes),
    then let Redis answer again, past the store's `retry_after`."""
    await store.run(lambda client: client.ping())  # connected
    redis.pause()
    try:
        with pytest.raises(StoreUnavailable):
            await op()
    finally:
        redis.resume()
    await anyio.sleep(store.retry_after + 0.05)


@pytest.mark.parametrize("what", ["a lease", "a cache lead"])
async def test_what_an_operation_that_timed_out_took_is_given_back_once_redis_answers(
    redis: RedisServer, what: str
) -> None:
    """The script ran after the caller gave up (it sat in a paused Redis's buffer): a slot, or the
    lead on a cache entry, was held with nobody behind it, for `lease` (30 s by default: every
    call to a pool of one refused) or `lead_for` (30 s: every replica waited for the entry)."""
    store = RedisStore(redis.url, timeout=0.3, retry_after=0.1)
    leases, cache = store.leases("gw:0", size=1, lease=30), store.cache("gw:1", ttl=60)
    try:
        if what == "a lease":
            assert await leases.acquire("earlier call")  # the script loaded: it runs once Redis resumes
            await leases.release("earlier call")
            await paused_during(redis, store, lambda: leases.acquire("timed-out call"))
            assert await leases.acquire("next call")
        else:
            await paused_during(redis, store, lambda: cache.lead("k", 30))
            assert await cache.lead("k", 30)
    finally:
        await store.close()


async def test_a_lease_whose_release_failed_is_given_back_once_redis_answers(redis: RedisServer) -> None:
    store = RedisStore(redis.url, timeout=0.3, retry_after=0.1)
    leases = store.leases("gw:0", size=1, lease=30)
    try:
        assert await leases.acquire("call")

        async def renewed_then_released() -> None:
            with pytest.raises(StoreUnavailable):
                await leases.renew("call")  # the outage begins (this renewal runs on resume)
            await leases.release("call")  # fails at once: the store is down

        await paused_during(redis, store, renewed_then_released)
        assert await leases.acquire("next call")
    finally:
        await store.close()


async def test_an_outage_is_logged_once_and_the_recovery_too(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = replica(redis.url, RateLimit(rate=100, burst=100), retry_after=0.1)
    caplog.set_level(logging.WARNING, logger="toolweave.store")

    def logged(text: str) -> list[str]:
        return [record.getMessage() for record in caplog.records if text in record.getMessage()]

    async with server:
        redis.stop()
        for _ in range(5):  # each past the 0.1 s pause after a failure: five attempts that fail
            await call(server, "lookup", {"q": "x"})
            await anyio.sleep(0.15)
        redis.start()

        async def recovered() -> bool:
            await call(server, "lookup", {"q": "x"})
            return bool(logged("reachable again"))

        await until(recovered)
        for _ in range(3):
            await call(server, "lookup", {"q": "x"})
    unreachable = logged("is unreachable")
    assert len(unreachable) == 1
    assert "redis://127.0.0.1" in unreachable[0]
    assert len(logged("reachable again")) == 1
    assert len(logged("lost the store")) == 1  # the change listener's own line, once too


async def test_the_first_operation_after_redis_restarted_succeeds(redis: RedisServer) -> None:
    """Pooled connections to the Redis that went away are stale: the operation that finds one
    reconnects and succeeds instead of failing (and marking the store down for `retry_after`)."""
    store = RedisStore(redis.url, timeout=0.5, retry_after=5)
    try:
        async with anyio.create_task_group() as group:  # several pooled connections, all idle after
            for _ in range(4):
                group.start_soon(store.run, lambda client: client.ping())
        redis.stop()
        redis.start()
        for n in range(4):
            assert await store.run(lambda client: client.set("k", "v")) is True, f"operation {n} after the restart"
        assert not store.down
    finally:
        await store.close()


async def test_a_store_down_at_start_is_an_outage_the_server_starts_through() -> None:
    server = replica(f"redis://127.0.0.1:{free_port()}/0", RateLimit(rate=1, burst=1))
    async with server:
        assert not (await call(server, "lookup", {"q": "x"})).is_error  # type: ignore[attr-defined]
        assert server.store.down  # type: ignore[attr-defined]


async def test_clean_ups_kept_for_later_each_run_once_when_operations_reach_redis_at_once(redis: RedisServer) -> None:
    store = RedisStore(redis.url, timeout=0.5)
    try:
        for name in ("first", "second", "third"):
            store.when_back(lambda client, name=name: client.incr(name))
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(store.run, lambda client: client.ping())
        counts = await store.run(lambda client: client.mget("first", "second", "third"))
    finally:
        await store.close()
    assert counts == [b"1", b"1", b"1"]


async def test_a_long_queue_of_clean_ups_is_shared_out_over_the_next_operations(redis: RedisServer) -> None:
    """A long outage can leave many; one operation running them all could pass its own timeout."""
    store, reader = RedisStore(redis.url, timeout=0.5), RedisStore(redis.url, timeout=0.5)
    done: list[int] = []
    try:
        for _ in range(RedisStore.CATCH_UP + 5):
            store.when_back(lambda client: client.incr("done"))
        for _ in range(2):
            await store.run(lambda client: client.ping())
            done.append(int(await reader.run(lambda client: client.get("done"))))
    finally:
        await store.close()
        await reader.close()
    assert done == [RedisStore.CATCH_UP, RedisStore.CATCH_UP + 5]


@pytest.mark.parametrize("what", ["a lease", "a cache lead"])
async def test_what_an_operation_cancelled_on_its_way_took_is_given_back(redis: RedisServer, what: str) -> None:
    """A call cancelled while its acquire (or lead) was on its way to Redis (its client went, a
    `Timeout`, the end of `wait`): the script still ran, and the slot, or the lead, was held with
    nobody behind it for `lease` or `lead_for` (30 s by default)."""
    store = RedisStore(redis.url, timeout=5.0, retry_after=0.1)
    leases, cache = store.leases("gw:0", size=1, lease=30), store.cache("gw:1", ttl=60)
    try:
        assert await leases.acquire("earlier call")  # the script loaded: it runs once Redis resumes
        await leases.release("earlier call")
        await store.run(lambda client: client.ping())
        redis.pause()
        try:
            with anyio.move_on_after(0.2) as waited:
                await (leases.acquire("cancelled call") if what == "a lease" else cache.lead("k", 30))
            assert waited.cancelled_caught
        finally:
            redis.resume()
        with anyio.fail_after(5):
            assert await (leases.acquire("next call") if what == "a lease" else cache.lead("k", 30))
    finally:
        await store.close()


async def test_a_call_cancelled_just_after_taking_a_cache_lead_gives_it_back(redis: RedisServer) -> None:
    """Cancelled between taking the lead on an entry and its look for an entry written meanwhile:
    the lead was held `lead_for` (30 s), and every replica waited that long for an entry nobody
    was computing."""
    from toolweave.store.redis_state import RedisCache

    class SlowRead(RedisCache):
        async def get(self, key: str) -> bytes | None:
            await anyio.sleep(30)  # a slow answer: the caller goes meanwhile
            return await super().get(key)

    class Store(RedisStore):
        def cache(self, scope: str, *, ttl: float) -> RedisCache:
            return SlowRead(self, self.key("cache", scope), ttl=ttl)

    one = Server("gw", store=Store(redis.url, timeout=5.0), middleware=[Cache(ttl=60)])
    two = replica(redis.url, Cache(ttl=60))

    @one.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
    async def lookup(q: str) -> str:
        return f"{q} from one"

    async with one, two:
        with anyio.move_on_after(0.3) as gone:
            await one.call_tool("lookup", {"q": "x"})
        assert gone.cancelled_caught
        with anyio.fail_after(5):
            assert (await two.call_tool("lookup", {"q": "x"})).text == "x#1"


async def test_a_probe_admission_cancelled_on_its_way_is_given_back(redis: RedisServer) -> None:
    """The call admitted as a half-open circuit's probe was cancelled while the admission was on
    its way: the probe flag stayed `reset_after`, and every replica turned every call away as "a
    probe call is in progress" meanwhile."""
    store = RedisStore(redis.url, timeout=5.0, retry_after=0.1)
    circuit = store.circuit("gw:0", failures=1, reset_after=2)
    try:
        assert await circuit.admit() == ("closed", 0)  # the script loaded: it runs once Redis resumes
        await circuit.record(False, False)  # open
        await anyio.sleep(2.1)  # half-open
        redis.pause()
        try:
            with anyio.move_on_after(0.2) as gone:
                await circuit.admit()
            assert gone.cancelled_caught
        finally:
            redis.resume()
        with anyio.fail_after(5):
            assert await circuit.admit() == ("probe", 0)
    finally:
        await store.close()
