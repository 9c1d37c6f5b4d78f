"""Fixtures: one real redis-server per test session; a fresh store (and empty database) per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.store.redis_server import RedisServer, redis_binary
from toolweave.store import RedisStore


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server for the whole session."""
    server = RedisServer(redis_binary(), Path(tmp_path_factory.mktemp("redis")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis(redis_server: RedisServer) -> Iterator[RedisServer]:
    """The session's redis-server, running and empty (a test that stopped it gets it back)."""
    if redis_server.process is None:
        redis_server.start()
    redis_server.flush()
    yield redis_server
    if redis_server.process is None:
        redis_server.start()


@pytest.fixture
async def store(redis: RedisServer) -> AsyncIterator[RedisStore]:
    """A store on the test's redis, closed after the test."""
    shared = RedisStore(redis.url, timeout=0.5, retry_after=0.2)
    try:
        yield shared
    finally:
        await shared.close()
