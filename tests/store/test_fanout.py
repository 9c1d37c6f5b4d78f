"""The change fan-out between replicas: applied once, own announcements ignored, bad messages dropped."""

from __future__ import annotations

import json

import anyio
import pytest

from tests.store.redis_server import RedisServer
from tests.store.replicas import replica
from toolweave.store import RedisStore
from toolweave.store.fanout import Fanout


async def names(server: object) -> list[str]:
    return [tool.name for tool in await server.list_tools()]  # type: ignore[attr-defined]


async def until(check: object) -> None:
    with anyio.fail_after(5):
        while not await check():  # type: ignore[operator]  # noqa: ASYNC110 - another process's state
            await anyio.sleep(0.05)


async def test_disable_and_enable_on_one_replica_apply_on_the_other(redis: RedisServer) -> None:
    one, two = replica(redis.url), replica(redis.url)
    async with one, two:
        one.disable("flaky")

        async def hidden() -> bool:
            return await names(two) == ["lookup"]

        await until(hidden)
        one.enable("flaky")

        async def shown() -> bool:
            return await names(two) == ["lookup", "flaky"]

        await until(shown)
        assert await names(one) == ["lookup", "flaky"]


async def test_malformed_announcements_are_ignored(redis: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    server = replica(redis.url)
    sender = RedisStore(redis.url, timeout=5)
    try:
        async with server:
            client = sender.client()
            await client.publish("toolweave:changes:gw", b"not json")
            await client.publish("toolweave:changes:gw", json.dumps({"op": "disable", "names": ["flaky"]}))

            async def applied() -> bool:
                return await names(server) == ["lookup"]

            await until(applied)
    finally:
        await sender.close()
    assert any("malformed change announcement" in record.getMessage() for record in caplog.records)


def test_nothing_is_announced_while_the_server_is_not_running() -> None:
    assert Fanout(RedisStore(), "toolweave:changes:gw").announce({"op": "changed"}) is False


async def test_during_an_outage_a_change_stays_local_and_the_fanout_resumes_after(redis: RedisServer) -> None:
    one, two = replica(redis.url, retry_after=0.1), replica(redis.url, retry_after=0.1)
    async with one, two:
        redis.stop()
        one.disable("flaky")  # synchronous: announcing never waits on the store
        assert await names(one) == ["lookup"]
        await anyio.sleep(0.3)
        assert await names(two) == ["lookup", "flaky"]
        redis.start()

        async def reached() -> bool:
            one.disable("lookup")  # announced again until the other replica's listener is back
            return "lookup" not in await names(two)

        await until(reached)
