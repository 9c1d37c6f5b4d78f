"""Fixtures: one real redis-server per test session, emptied before each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.redis_server import RedisServer, redis_binary


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
