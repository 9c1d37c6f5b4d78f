"""Many calls at once against a healthy Redis: no spurious outage, so policies stay exact."""

from __future__ import annotations

import logging

import anyio
import pytest

from tests.store.redis_server import RedisServer
from toolweave import Server
from toolweave.middleware import RateLimit
from toolweave.store import RedisStore


async def test_more_calls_at_once_than_connections_wait_for_one_instead_of_an_outage(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    limit = RateLimit(rate=0.001, burst=100, on_store_error="allow")  # an outage would let every call in
    server = Server("gw", store=RedisStore(redis.url, timeout=5.0), middleware=[limit])

    @server.tool
    async def ping() -> str:
        return "pong"

    caplog.set_level(logging.WARNING, logger="toolweave.store")
    allowed: list[bool] = []
    async with server:

        async def call() -> None:
            allowed.append(not (await server.call_tool("ping")).is_error)

        async with anyio.create_task_group() as tasks:
            for _ in range(600):  # more than the store's 256 connections
                tasks.start_soon(call)
    assert allowed.count(True) == 100
    assert not [record for record in caplog.records if "unreachable" in record.getMessage()]
