"""`RedisStore`: state shared by every replica through one Redis (or Valkey) server.

Needs the `redis` package (`pip install "toolweave[redis]"`); uses `redis.asyncio` on the
asyncio event loop. Every operation runs under `timeout` seconds; a failure marks the store down
for `retry_after` seconds, during which operations fail at once (`StoreUnavailable`) instead of
waiting on a dead server, so an outage costs each call nothing but its middleware's fallback.
What an outage leaves held is given back by the first operation that reaches Redis again: a
release that failed, and what an operation that timed out may still have taken (a paused Redis
runs it when it resumes: a concurrency lease, a cache entry's lead), which would otherwise hold
a slot or keep every replica waiting until it expired.
Keys start with `namespace` (default `"toolweave"`), then the server name (a mounted server's
is qualified by where it is mounted: `gateway/acct/accounts`) and the middleware's position on
that server, so replicas built from one config share exactly the same state, and different
servers none.

Example:
    >>> store = RedisStore("redis://127.0.0.1:6379/0", timeout=0.25)
    >>> store.key("rate", "gateway:0", "peer:10.0.0.7")
    'toolweave:rate:gateway:0:peer:10.0.0.7'
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import anyio
import anyio.lowlevel

from toolweave.core.errors import ConfigError
from toolweave.core.extras import installed, need
from toolweave.core.shown import shown_url, unencoded_userinfo
from toolweave.store.base import (
    SharedCache,
    SharedCircuit,
    SharedLeases,
    SharedRateLimiter,
    Store,
    StoreUnavailable,
    reason_of,
)
from toolweave.store.scripts import RIGHTS

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from toolweave.store.fanout import Fanout

logger = logging.getLogger("toolweave.store")
T = TypeVar("T")
Op = Callable[["Redis"], Awaitable[object]]
"""An operation on the client, kept to run once Redis answers again (`RedisStore.when_back`)."""


def _redis_module() -> Any:
    return need("redis.asyncio", 'RedisStore needs the redis package: pip install "toolweave[redis]"')


def _errors() -> Any:
    """redis-py's exceptions (`redis.asyncio` does not name them all in every version we support)."""
    return need("redis.exceptions", 'RedisStore needs the redis package: pip install "toolweave[redis]"')


def _reconnect_once(module: Any) -> Any:
    """redis-py's retry policy for a command whose connection failed: once more, on a new connection
    (a timeout is not retried: the operation's own `timeout` has run out by then)."""
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return Retry(NoBackoff(), 1, supported_errors=(module.ConnectionError,))


def check_url(url: str) -> str:
    """`url` if it is a redis:// (rediss://, unix://) URL redis-py can connect with, else a clear
    `ValueError` (the URL shown without its password).

    Example:
        >>> check_url("redis://127.0.0.1:6379/cache")
        Traceback (most recent call last):
        ...
        ValueError: the database of a store URL is a number (redis://host:6379/0), not 'cache': 'redis://127.0.0.1:6379/cache'
    """
    if unencoded_userinfo(url) is not None:  # else redis-py reads part of the password as the port
        raise ValueError(
            "the password of a store URL must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23): "
            f"{shown_url(url)!r}"
        )
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.netloc or parts.path):
        raise ValueError(f"a store URL looks like 'redis://127.0.0.1:6379/0', not {shown_url(url)!r}")
    database = parts.path.strip("/") if parts.scheme != "unix" else ""
    if database and not database.isdigit():  # redis-py would quietly use database 0
        shown = shown_url(url)
        raise ValueError(f"the database of a store URL is a number (redis://host:6379/0), not {database!r}: {shown!r}")
    if not installed("redis"):  # RedisStore says so when it is made; a config file may still be checked
        return url
    module = _redis_module()
    try:  # what redis-py would refuse only when it first connects: an unknown or malformed option
        module.ConnectionPool.from_url(url).make_connection()
    except Exception as error:  # TypeError, ValueError, RedisError: whatever redis-py says of it
        raise ValueError(f"the store URL {shown_url(url)!r} is not one redis-py accepts: {error}") from None
    return url


PASSING_STATES = ("BUSY", "MISCONF", "MASTERDOWN", "TRYAGAIN", "NOREPLICAS", "CLUSTERDOWN")
"""Redis's error codes for a state it is in for a while, not for what it was asked."""


def passing_state(error: Exception) -> bool:
    """Whether Redis refused a command for a state that passes (busy running a script, unable to
    save to disk, out of memory), rather than for the command itself: an outage, not a mistake.

    Example:
        >>> from redis.exceptions import AuthenticationError, ResponseError
        >>> passing_state(ResponseError("BUSY Redis is busy running a script.")), passing_state(
        ...     ResponseError("DB index is out of range")
        ... ), passing_state(AuthenticationError("invalid username-password pair"))
        (True, False, False)
    """
    code = str(error).split(" ", 1)[0]
    return code in PASSING_STATES or isinstance(error, _errors().OutOfMemoryError)


class RedisStore(Store):
    """Shared state in Redis.

    Args:
        url: `redis://[user:password@]host:port/db` (or `rediss://`, `unix://`).
        namespace: The prefix of every key and channel.
        timeout: Seconds any one operation may take (connect included) before it counts as an outage.
        retry_after: Seconds operations fail at once after an outage before Redis is tried again.
        max_value_bytes: The largest cached result stored (larger ones are not cached).
        event_ttl: Seconds resumable-SSE events are kept.
    """

    shared = True

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        namespace: str = "toolweave",
        timeout: float = 0.5,
        retry_after: float = 1.0,
        max_value_bytes: int = 1024 * 1024,
        event_ttl: float = 3600.0,
    ) -> None:
        _redis_module()  # missing, it is an error now, not an outage at every call
        self.url = check_url(url)
        self.namespace = namespace
        self.database = int(_redis_module().ConnectionPool.from_url(self.url).connection_kwargs.get("db") or 0)
        """The URL's database (channels are named by it: see `channel`)."""
        self.timeout = timeout
        self.retry_after = retry_after
        self.max_value_bytes = max_value_bytes
        self.event_ttl = event_ttl
        self._client: Redis | None = None
        self._loop: object = None
        self._down_until = 0.0
        self._scripts: dict[str, Any] = {}
        self._users = 0
        self._when_back: deque[Op] = deque(maxlen=self.WHEN_BACK)

    WHEN_BACK = 1024
    """The most operations kept for `when_back` (the oldest dropped first: what they clean up expires)."""
    CATCH_UP = 16
    """The most of them one operation runs before its own (the next operations run the rest)."""

    def __repr__(self) -> str:
        return f"RedisStore({shown_url(self.url)!r})"

    def key(self, *parts: str) -> str:
        """A key in this store's namespace."""
        return ":".join((self.namespace, *parts))

    def channel(self, *parts: str) -> str:
        """A pub/sub channel in this store's namespace and database. Redis has one channel space
        for all its databases, so two deployments on databases 0 and 1 of one Redis heard each
        other's `enable`/`disable`; a database other than 0 is in its channels' names.

        Example:
            >>> RedisStore("redis://127.0.0.1:6379/0").channel("changes", "gw")
            'toolweave:changes:gw'
            >>> RedisStore("redis://127.0.0.1:6379/2").channel("changes", "gw")
            'toolweave:db2:changes:gw'
        """
        return self.key(*parts) if self.database == 0 else self.key(f"db{self.database}", *parts)

    # -- the connection ------------------------------------------------------------------------

    def client(self) -> Redis:
        """The client for the running event loop (made on first use in each loop)."""
        loop = anyio.lowlevel.current_token().native_token
        if self._client is None or self._loop is not loop:
            module = _redis_module()
            # a blocking pool: a call finding every connection busy waits for one (within the
            # timeout) rather than failing, which would count as an outage under load; a command
            # that finds its pooled connection dead (Redis restarted, a failover) is sent once more
            # on a new one, within the same timeout, instead of counting as an outage
            pool = module.BlockingConnectionPool.from_url(
                self.url,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=_reconnect_once(module),
                retry_on_error=[module.ConnectionError],  # (redis-py 5 asks both)
                max_connections=256,
                timeout=self.timeout,
            )
            self._client = module.Redis(connection_pool=pool)
            self._loop = loop
            self._scripts.clear()
        return self._client

    def script(self, source: str) -> Any:
        """A registered script (EVALSHA, loaded again if the server forgot it)."""
        found = self._scripts.get(source)
        if found is None:
            found = self._scripts[source] = self.client().register_script(source)
        return found

    @property
    def down(self) -> bool:
        """Whether a recent failure makes operations fail at once."""
        return self._down_until > anyio.current_time()

    async def run(self, op: Callable[[Redis], Awaitable[T]], *, undo: Op | None = None) -> T:
        """Run `op(client)` within `timeout`; any failure is `StoreUnavailable`. After an outage's
        `retry_after`, one operation tries Redis again while the others keep failing at once, so a
        Redis that does not answer costs one call the timeout, not every call made meanwhile.

        `undo` is run `when_back` if `op` was sent and failed or was cancelled: it may still have
        been done (a timed-out script runs once a paused Redis resumes; a cancelled one was on its
        way), and its caller has given up on it."""
        if self._down_until:
            now = anyio.current_time()
            if self._down_until > now:
                raise StoreUnavailable(f"{self!r} is unavailable")
            self._down_until = now + self.timeout  # this one tries; an answer ends the outage
        try:
            with anyio.fail_after(self.timeout):
                client = self.client()
                if self._when_back:  # the first operation that reaches Redis again cleans up first
                    await self._caught_up(client)
                result = await op(client)
        except Exception as error:  # the outage story: one exception, the caller's policy
            self._fail(error)
            if undo is not None:
                self._when_back.append(undo)
            raise StoreUnavailable(f"{self!r} is unavailable") from error
        except BaseException:  # cancelled (a client gone, a deadline, the end of a wait): no outage
            if undo is not None:
                self._when_back.append(undo)
            raise
        if self._down_until:
            self._down_until = 0.0
            logger.warning("%r is reachable again", self)
        return result

    def when_back(self, op: Op) -> None:
        """Run `op(client)` before the next operation that reaches Redis, best effort: a release
        that failed, whose lease or flag would otherwise hold until it expires by itself."""
        self._when_back.append(op)

    async def _caught_up(self, client: Redis) -> None:
        """Run up to `CATCH_UP` of the operations `when_back` kept, oldest first, so a long queue
        never takes one operation past its timeout (one that fails is kept, and fails the
        operation that ran it, as an outage). Each is taken before it runs: operations running at
        once share the work out, and none is dropped unrun."""
        pending = self._when_back
        for _ in range(self.CATCH_UP):
            if not pending:  # (operations running at once took the rest)
                return
            op = pending.popleft()
            try:
                await op(client)
            except BaseException:
                pending.appendleft(op)
                raise

    async def check(self) -> None:
        """At start: one PING, then what the store does with its rights (a script writing a key
        of its namespace, a message published on a channel of it; neither changes anything). A
        server refusing the credentials, the database, those rights (an ACL user limited to other
        keys, without scripting or channels) or writes (a read-only replica) is a configuration
        error: it would never come good, and every use would fail as an outage. One not answering,
        or in a passing state (`passing_state`: busy running a script, unable to save), is an
        outage (logged, then each use applies its outage policy).

        Raises:
            ConfigError: Redis refused the connection, or the rights the store needs, as configured.
        """
        redis = _redis_module()
        try:
            with anyio.fail_after(self.timeout):
                client = self.client()
                await client.ping()
                await self.script(RIGHTS)(keys=[self.key("check")], client=client)
                await client.publish(self.channel("check"), "")
        except (redis.AuthenticationError, redis.ResponseError) as refused:
            if passing_state(refused):
                self._fail(refused)
                return
            await self.close()  # the server does not start: nothing else would close its connections
            raise ConfigError(f"{self!r} {self._refusal(refused)}") from None
        except Exception as error:  # nothing answers: an outage, not a mistake
            self._fail(error)

    def _refusal(self, refused: Exception) -> str:
        """What Redis refused at `check`, and what to look at."""
        reason = reason_of(refused).rstrip(".")
        if isinstance(refused, _errors().ReadOnlyError):
            return f"refused writes: {reason}; the URL names a read-only replica: give its primary's"
        if isinstance(refused, _errors().NoPermissionError):
            where = self.key("*")
            return (
                f"refused the store's rights: {reason}; the URL's user needs the store's commands "
                f"(scripting and pub/sub included) on keys and channels {where!r}"
            )
        return f"refused the connection: {reason}; check the URL's user, password and database"

    def _fail(self, error: BaseException) -> None:
        if not self._down_until:
            logger.warning("%r is unreachable (%s); using each use's fallback", self, reason_of(error))
        self._down_until = anyio.current_time() + self.retry_after

    async def close(self) -> None:
        """Close the connections of the current loop's client."""
        client, self._client = self._client, None
        self._scripts.clear()
        if client is not None:
            with anyio.CancelScope(shield=True), anyio.move_on_after(self.timeout):
                await client.aclose(close_connection_pool=True)

    # -- what middleware takes from the store --------------------------------------------------

    def rate_limiter(self, scope: str, *, rate: float, burst: float) -> SharedRateLimiter:
        from toolweave.store.redis_state import RedisRateLimiter

        return RedisRateLimiter(self, self.key("rate", scope), rate=rate, burst=burst)

    def cache(self, scope: str, *, ttl: float) -> SharedCache:
        from toolweave.store.redis_state import RedisCache

        return RedisCache(self, self.key("cache", scope), ttl=ttl)

    def circuit(self, scope: str, *, failures: int, reset_after: float) -> SharedCircuit:
        from toolweave.store.redis_state import RedisCircuit

        return RedisCircuit(self, self.key("circuit", scope), failures=failures, reset_after=reset_after)

    def leases(self, scope: str, *, size: int, lease: float) -> SharedLeases:
        from toolweave.store.redis_state import RedisLeases

        return RedisLeases(self, self.key("leases", scope), size=size, lease=lease)

    def fanout(self, channel: str) -> Fanout:
        from toolweave.store.fanout import Fanout

        return Fanout(self, self.channel("changes", channel))

    # -- users: the store closes when the last server holding it stops ---------------------------

    def enter(self) -> None:
        self._users += 1

    async def leave(self) -> None:
        self._users -= 1
        if self._users <= 0:
            await self.close()
