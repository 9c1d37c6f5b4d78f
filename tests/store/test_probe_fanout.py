"""Announcements between replicas that are not what they should be never cost the ones that are."""

from __future__ import annotations

import json
import logging

import anyio
import pytest

from tests.store.redis_server import RedisServer
from toolweave import Server
from toolweave.store import RedisStore


async def test_an_announcement_of_the_wrong_shape_is_ignored_and_the_next_one_applies(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = Server("gw", store=RedisStore(redis.url, timeout=2.0, retry_after=5.0))

    @server.tool
    def a() -> str:
        return "a"

    @server.tool
    def b() -> str:
        return "b"

    sender = RedisStore(redis.url, timeout=2.0)
    caplog.set_level(logging.WARNING, logger="toolweave.store")
    try:
        async with server:
            await anyio.sleep(0.3)  # subscribed
            client = sender.client()
            for wrong in ({"op": "disable", "names": "ab"}, {"op": "disable", "names": 5}):
                await client.publish("toolweave:changes:gw", json.dumps(wrong))
            await client.publish("toolweave:changes:gw", json.dumps({"op": "disable", "names": ["a"]}))
            with anyio.fail_after(3):  # well before the listener would have come back from a reconnect (5 s)
                while [tool.name for tool in await server.list_tools()] != ["b"]:  # noqa: ASYNC110 - another process
                    await anyio.sleep(0.02)
    finally:
        await sender.close()
    assert not any("lost the store" in record.getMessage() for record in caplog.records)
