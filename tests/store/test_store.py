"""Choosing a store: the in-memory default, a Redis URL, the config's `server.store`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.store.redis_server import RedisServer
from toolweave import Server
from toolweave.config import build_file
from toolweave.core.errors import ConfigError
from toolweave.middleware import Cache, CircuitBreaker, ConcurrencyLimit, RateLimit
from toolweave.store import MemoryStore, RedisStore, open_store


def test_a_server_keeps_its_state_in_memory_by_default() -> None:
    limit, cache, breaker = RateLimit(rate=1), Cache(ttl=1), CircuitBreaker()
    server = Server("gw", middleware=[limit, cache, breaker])
    assert isinstance(server.store, MemoryStore)
    assert not server.store.shared
    assert server.store.fanout("gw") is None
    assert breaker.shared_circuit("x") is None


def test_a_redis_url_makes_a_shared_store() -> None:
    server = Server("gw", store="redis://127.0.0.1:6379/1")
    assert isinstance(server.store, RedisStore)
    assert server.store.shared


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379", "127.0.0.1:6379", "redis://"])
def test_a_store_url_that_is_not_redis_is_refused_clearly(url: str) -> None:
    with pytest.raises(ValueError, match=re.escape("a store URL looks like 'redis://127.0.0.1:6379/0'")):
        RedisStore(url)


def test_a_password_in_the_url_is_never_shown() -> None:
    store = RedisStore("redis://app:s3cret@10.0.0.5:6379/0")
    assert "s3cret" not in repr(store)
    with pytest.raises(ValueError) as refused:
        RedisStore("http://app:s3cret@10.0.0.5:6379/0")
    assert "s3cret" not in str(refused.value)


def test_a_store_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(TypeError, match=re.escape("store must be a Store, a 'redis://...' URL or None, not int")):
        open_store(6379)  # type: ignore[arg-type]


def test_the_config_chooses_the_store_and_the_outage_policies(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text(
        "server: {name: gw, store: 'redis://127.0.0.1:6379/0'}\n"
        "middleware:\n"
        "  rate_limit: {rate: 1, on_store_error: reject}\n"
        "  concurrency: {limit: 2, shared: true, lease: 5}\n"
    )
    server = build_file(config).server
    limit, bulkhead = server.middleware
    assert isinstance(server.store, RedisStore)
    assert isinstance(limit, RateLimit) and limit.on_store_error == "reject"
    assert isinstance(bulkhead, ConcurrencyLimit) and (bulkhead.shared, bulkhead.lease) == (True, 5)


def test_a_bad_store_in_the_config_names_the_key(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text("server: {store: 'mysql://u:pw@db/0'}\n")
    with pytest.raises(ConfigError) as refused:
        build_file(config)
    assert "server.store" in str(refused.value)
    assert "pw@" not in str(refused.value)


def test_bad_outage_policies_are_refused() -> None:
    with pytest.raises(ValueError, match="on_store_error must be 'local', 'allow' or 'reject'"):
        RateLimit(rate=1, on_store_error="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ConcurrencyLimit lease must be > 0"):
        ConcurrencyLimit(1, lease=0)


async def test_middleware_of_one_server_gets_separate_keys(redis: RedisServer) -> None:
    first, second = RateLimit(rate=0.001, burst=1), RateLimit(rate=0.001, burst=1, tools="flaky")
    server = Server("gw", store=RedisStore(redis.url, timeout=5), middleware=[first, second])

    @server.tool
    def flaky() -> str:
        return "ok"

    async with server:
        results = [await server.call_tool("flaky") for _ in range(2)]
    assert [result.is_error for result in results] == [False, True]


async def test_an_entrys_own_middleware_shares_the_roots_store(tmp_path: Path, redis: RedisServer) -> None:
    (tmp_path / "entry_tools.py").write_text("def ping() -> str:\n    return 'pong'\n")
    config = tmp_path / "gw.yaml"
    config.write_text(
        f"server: {{name: gw, store: '{redis.url}'}}\n"
        "python:\n  - import: 'entry_tools:ping'\n    middleware: {rate_limit: {rate: 0.001, burst: 1}}\n"
    )
    one, two = build_file(config).server, build_file(config).server
    async with one, two:
        first = await one.call_tool("ping")
        second = await two.call_tool("ping")
    assert (first.is_error, second.is_error) == (False, True)


def test_the_config_can_set_the_stores_options(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text(
        "server:\n  store: {url: 'redis://127.0.0.1:6379/2', timeout: 2, namespace: acme, retry_after: 3}\n"
    )
    store = build_file(config).server.store
    assert isinstance(store, RedisStore)
    assert (store.url, store.timeout, store.namespace, store.retry_after) == ("redis://127.0.0.1:6379/2", 2, "acme", 3)


def test_an_unknown_store_option_is_named(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text("server:\n  store: {url: 'redis://127.0.0.1:6379/2', timout: 2}\n")
    with pytest.raises(ConfigError, match=re.escape("server.store.timout")):
        build_file(config)
