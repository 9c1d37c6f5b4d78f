"""The store tests' real redis-server, for the tasks kept in Redis."""

from tests.store.conftest import redis, redis_server

__all__ = ["redis", "redis_server"]
