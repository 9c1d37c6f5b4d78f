"""`Store`: where a server's shared state lives, chosen once per server.

A server has one store (`Server(store=...)`, config `server.store`). The default,
`MemoryStore`, keeps every piece of state in the middleware objects of this process, exactly
as they always did: nothing is shared and no call pays for it. A shared store (`RedisStore`)
hands the stateful middleware a backend whose state every replica sees:

| use                    | shared state                              | when the store is unreachable                  |
|------------------------|-------------------------------------------|------------------------------------------------|
| `RateLimit`            | one token bucket per caller key           | `on_store_error`: local (default)/allow/reject |
| `Cache`                | entries with a TTL, values size-capped    | skipped: the call goes upstream                |
| `CircuitBreaker`       | open/closed, failure count, one probe     | this process's own circuit                     |
| `ConcurrencyLimit`     | leases that expire (`shared=True`)        | this process's own pool                        |
| event store (HTTP)     | resumable-SSE events (`mcp.redis_events`) | sent live, not replayable                      |
| `list_changed` fan-out | enable/disable/changed on every replica   | this replica only                              |

Every shared operation is bounded by the store's timeout; a failure raises `StoreUnavailable`
inside toolweave (never to a client), and the middleware applies its policy above. A rate
limit's `"local"` counts in this process's own buckets; `"allow"` lets every call through,
`"reject"` turns every call away.

Example:
    >>> store = MemoryStore()
    >>> store.shared, store.rate_limiter("demo:0", rate=1, burst=1) is None
    (False, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from toolweave.store.fanout import Fanout


class StoreUnavailable(Exception):
    """The shared store did not answer in time (or refused); the caller applies its outage policy."""


def reason_of(error: BaseException) -> str:
    """Why a store failed, for a log line: the error's type and its message (redis-py's never holds
    the password): `AuthenticationError: invalid username-password pair ...`.

    Example:
        >>> reason_of(ConnectionError("Connection refused")), reason_of(TimeoutError())
        ('ConnectionError: Connection refused', 'TimeoutError')
    """
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class SharedRateLimiter(Protocol):
    """Token buckets every replica draws from."""

    async def take(self, key: str) -> float:
        """Take one token from `key`'s bucket: 0.0 if granted, else the seconds until one is free."""
        ...


class SharedCache(Protocol):
    """Cache entries every replica reads and writes (serialised results)."""

    max_value_bytes: int

    async def get(self, key: str) -> bytes | None: ...

    async def look(self, key: str) -> tuple[bytes | None, bool]:
        """The entry of `key` (or None) and whether a replica holds the lead on it, at once."""
        ...

    async def put(self, key: str, value: bytes) -> None: ...

    async def lead(self, key: str, hold: float) -> bool:
        """Whether this replica may compute `key` now (no other replica is computing it)."""
        ...

    async def done(self, key: str) -> None:
        """Release the lead on `key`."""
        ...


class SharedCircuit(Protocol):
    """One circuit breaker's state, the same on every replica."""

    async def admit(self) -> tuple[str, float]:
        """`("closed", 0)`, `("probe", 0)` (this call is the one trial), `("open", seconds left)`
        or `("probing", 0)` (another replica's trial is running)."""
        ...

    async def record(self, ok: bool, probe: bool) -> None: ...

    async def withdraw(self) -> None:
        """Give the probe this replica was admitted for back, with no outcome (its caller went
        away): the next call on any replica probes."""
        ...


class SharedLeases(Protocol):
    """A concurrency pool counted across replicas; a lease expires unless renewed."""

    lease: float

    async def acquire(self, holder: str) -> bool: ...

    async def renew(self, holder: str) -> None: ...

    async def release(self, holder: str) -> None: ...


class Store:
    """The in-process store: every method returns `None`, so middleware keeps its own state.

    Shared stores override the factories. `scope` names one middleware of one server
    (`"{server}:{position}"`), so that replicas built from the same config share exactly the
    state of the same middleware.
    """

    shared = False
    """Whether state is shared with other processes."""

    def rate_limiter(self, scope: str, *, rate: float, burst: float) -> SharedRateLimiter | None:
        """Shared token buckets for the `RateLimit` named by `scope` (None: it keeps its own)."""
        return None

    def cache(self, scope: str, *, ttl: float) -> SharedCache | None:
        """Shared entries for the `Cache` named by `scope` (None: it keeps its own)."""
        return None

    def circuit(self, scope: str, *, failures: int, reset_after: float) -> SharedCircuit | None:
        """The shared state of one circuit (None: the `CircuitBreaker` keeps its own)."""
        return None

    def leases(self, scope: str, *, size: int, lease: float) -> SharedLeases | None:
        """A shared pool of `size` leases (None: the `ConcurrencyLimit` keeps its own pool)."""
        return None

    def fanout(self, channel: str) -> Fanout | None:
        """Announcements to the other replicas of a server (none here)."""
        return None

    def enter(self) -> None:
        """A server holding this store started."""

    async def check(self) -> None:
        """Make sure the store can be used as configured, when a server holding it starts.

        Raises:
            ConfigError: the store refuses this configuration (a wrong password); an outage
                (nothing answers) is not an error here: each use applies its outage policy.
        """

    async def leave(self) -> None:
        """A server holding this store stopped (the last one closes its connections)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MemoryStore(Store):
    """State in this process only (the default): the fastest, and what one process needs."""
