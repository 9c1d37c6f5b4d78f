"""A store that is set up wrong says so: at once when the URL or the install is wrong, and with the
reason (never the password) when Redis refuses it."""

from __future__ import annotations

import logging
import re
import sys

import pytest

from tests.store.redis_server import RedisServer
from toolweave import Server
from toolweave.core.errors import ConfigError
from toolweave.middleware import RateLimit
from toolweave.store import RedisStore


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("redis://:s3cret@127.0.0.1:6379/cache", "'cache'"),
        ("redis://:s3cret@127.0.0.1:6379/-1", "'-1'"),
        ("redis://:s3cret@127.0.0.1:6379/0?colour=blue", "colour"),
        ("redis://:s3cret@127.0.0.1:6379/0?socket_timeout=soon", "socket_timeout"),
        ("rediss://:s3cret@127.0.0.1:6379/0?ssl_cert_reqs=sometimes", "sometimes"),
    ],
)
def test_a_url_redis_would_misread_or_refuse_later_is_refused_at_once(url: str, named: str) -> None:
    with pytest.raises(ValueError) as raised:
        RedisStore(url)
    assert named in str(raised.value) and "s3cret" not in str(raised.value)


@pytest.mark.parametrize("password", ["Zm9v/YmFy+cXV4", "Qx7#kz9-w", "Hq2?Zr8v"])
def test_a_password_with_an_unencoded_delimiter_is_refused_without_showing_any_of_it(password: str) -> None:
    """A parser ends the host at the `/` (`?`, `#`): redis-py took the rest for the port and said so."""
    with pytest.raises(ValueError) as raised:
        RedisStore(f"redis://:{password}@127.0.0.1:6379/0")
    message = str(raised.value)
    assert "percent-encoded" in message and "redis://***@127.0.0.1:6379/0" in message
    assert not any(piece in message for piece in re.split(r"[/#?]", password))


def test_without_the_redis_package_a_redis_store_is_an_error_not_an_outage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    with pytest.raises(ImportError, match=r"toolweave\[redis\]"):
        Server("gw", store="redis://127.0.0.1:6379/0")


def test_a_password_given_as_an_option_is_not_shown() -> None:
    assert "s3cret" not in repr(RedisStore("redis://127.0.0.1:6379/0?password=s3cret"))


def password_redis(redis_server: RedisServer) -> RedisServer:
    """A second redis-server, beside the session's, that wants the password "right-one"."""
    return RedisServer(redis_server.binary, redis_server.workdir, password="right-one")


@pytest.mark.parametrize(
    ("credentials", "database", "reason"), [(":wrong-one@", 0, "invalid"), (":right-one@", 99, "DB index")]
)
async def test_redis_refusing_the_store_is_logged_with_its_reason(
    redis_server: RedisServer,
    caplog: pytest.LogCaptureFixture,
    credentials: str,
    database: int,
    reason: str,
) -> None:
    locked = password_redis(redis_server)
    locked.start()
    try:
        url = f"redis://{credentials}127.0.0.1:{locked.port}/{database}"
        server = Server("gw", store=RedisStore(url, timeout=2.0), middleware=[RateLimit(rate=0.001, burst=1)])

        @server.tool
        def ping() -> str:
            return "pong"

        caplog.set_level(logging.WARNING, logger="toolweave.store")
        result = await server.call_tool("ping")  # the rate limit falls back to this process
    finally:
        locked.stop()
    logged = [record.getMessage() for record in caplog.records if "is unreachable" in record.getMessage()]
    assert result.text == "pong"
    assert logged and reason in logged[0] and "wrong-one" not in logged[0] and "right-one" not in logged[0]


@pytest.mark.parametrize(
    ("credentials", "database"), [(":wrong-one@", 0), ("", 0), (":right-one@", 99)], ids=["wrong", "none", "no db"]
)
async def test_a_server_started_on_a_redis_that_refuses_its_configuration_does_not_start(
    redis_server: RedisServer, credentials: str, database: int
) -> None:
    """A wrong password or database never comes good: the start fails saying so (an outage does not)."""
    locked = password_redis(redis_server)
    locked.start()
    try:
        url = f"redis://{credentials}127.0.0.1:{locked.port}/{database}"
        with pytest.raises(ConfigError, match="refused the connection") as refused:
            async with Server("gw", store=RedisStore(url, timeout=2.0)):
                pass
        async with Server("gw", store=RedisStore(f"redis://:right-one@127.0.0.1:{locked.port}/0")) as right:
            assert right.running
    finally:
        locked.stop()
    assert "check the URL's user, password and database" in str(refused.value)
    assert "wrong-one" not in str(refused.value) and "right-one" not in str(refused.value)
