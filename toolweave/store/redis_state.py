"""Middleware state in Redis: token buckets, cache entries, circuits, concurrency leases.

Each is one small object bound to one middleware of one server (`prefix`); every operation is
one round trip (a Lua script where it reads and writes) through `RedisStore.run`, so it is
atomic across replicas and bounded by the store's timeout.

Example:
    >>> from toolweave.store.redis_store import RedisStore
    >>> limiter = RedisRateLimiter(RedisStore(), "toolweave:rate:demo:0", rate=5, burst=10)
    >>> limiter.prefix
    'toolweave:rate:demo:0'
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from toolweave.store.base import StoreUnavailable
from toolweave.store.scripts import (
    CIRCUIT_ADMIT,
    CIRCUIT_RECORD,
    LEASE_ACQUIRE,
    LEASE_RENEW,
    PROBE_UNDO,
    TOKEN_BUCKET,
)

if TYPE_CHECKING:
    from toolweave.store.redis_store import RedisStore


class RedisRateLimiter:
    """One token bucket per key, shared by every replica (`SharedRateLimiter`)."""

    def __init__(self, store: RedisStore, prefix: str, *, rate: float, burst: float) -> None:
        self.store = store
        self.prefix = prefix
        self.rate = rate
        self.burst = burst

    async def take(self, key: str) -> float:
        """0.0 if a token was taken from `key`'s bucket, else the seconds until one is free."""
        store = self.store
        keys = [f"{self.prefix}:{key}"]
        args = [repr(self.rate), repr(self.burst)]
        wait = await store.run(lambda client: store.script(TOKEN_BUCKET)(keys=keys, args=args, client=client))
        return float(wait)


class RedisCache:
    """Serialised results with a TTL, and a lead flag so one replica computes a missing entry."""

    def __init__(self, store: RedisStore, prefix: str, *, ttl: float) -> None:
        self.store = store
        self.prefix = prefix
        self.ttl_ms = max(1, int(ttl * 1000))
        self.max_value_bytes = store.max_value_bytes

    async def get(self, key: str) -> bytes | None:
        name = f"{self.prefix}:{key}"
        value = await self.store.run(lambda client: client.get(name))
        return value if value is None or isinstance(value, bytes) else str(value).encode()

    async def look(self, key: str) -> tuple[bytes | None, bool]:
        name = f"{self.prefix}:{key}"
        value, lead = await self.store.run(lambda client: client.mget(name, f"{name}:lead"))
        return (value if value is None or isinstance(value, bytes) else str(value).encode()), lead is not None

    async def put(self, key: str, value: bytes) -> None:
        name = f"{self.prefix}:{key}"
        await self.store.run(lambda client: client.set(name, value, px=self.ttl_ms))

    async def lead(self, key: str, hold: float) -> bool:
        """Claim the computation of `key` for `hold` seconds; False when another replica holds it.
        A claim that failed may still have been made (it timed out on its way): the flag is dropped
        once Redis answers again, or every replica would wait `hold` for an entry nobody computes."""
        name = f"{self.prefix}:{key}:lead"
        hold_ms = max(1, int(hold * 1000))
        claimed = await self.store.run(
            lambda client: client.set(name, b"1", nx=True, px=hold_ms), undo=lambda client: client.delete(name)
        )
        return bool(claimed)

    async def done(self, key: str) -> None:
        """Release the lead on `key` (once Redis answers again, if it does not now)."""
        name = f"{self.prefix}:{key}:lead"
        try:
            await self.store.run(lambda client: client.delete(name))
        except StoreUnavailable:
            self.store.when_back(lambda client: client.delete(name))
            raise


class RedisCircuit:
    """One circuit's state, open on every replica once it opens on one (`SharedCircuit`)."""

    def __init__(self, store: RedisStore, prefix: str, *, failures: int, reset_after: float) -> None:
        self.store = store
        self.keys = [prefix, f"{prefix}:probe"]
        self.failures = failures
        self.reset_ms = max(1, int(reset_after * 1000))

    async def admit(self) -> tuple[str, float]:
        """The circuit's answer (`SharedCircuit.admit`). One that failed or was cancelled may
        still have made this call the probe (it was on its way): the flag is dropped once Redis
        answers again if this admission took it, or every replica would refuse every call for
        `reset_after`."""
        store = self.store
        args = [self.reset_ms, secrets.token_hex(8)]
        state, value = await store.run(
            lambda client: store.script(CIRCUIT_ADMIT)(keys=self.keys, args=args, client=client),
            undo=lambda client: store.script(PROBE_UNDO)(keys=self.keys[1:], args=args[1:], client=client),
        )
        state = state.decode() if isinstance(state, bytes) else str(state)
        return state, int(value) / 1000 if state == "open" else float(value)

    async def record(self, ok: bool, probe: bool) -> None:
        store = self.store
        args = [int(ok), int(probe), self.failures, self.reset_ms]
        await store.run(lambda client: store.script(CIRCUIT_RECORD)(keys=self.keys, args=args, client=client))

    async def withdraw(self) -> None:
        """Drop the probe flag (once Redis answers again, if it does not now)."""
        probe = self.keys[1]
        try:
            await self.store.run(lambda client: client.delete(probe))
        except StoreUnavailable:
            self.store.when_back(lambda client: client.delete(probe))
            raise


class RedisLeases:
    """A pool of `size` leases across replicas; a lease not renewed within `lease` seconds expires."""

    def __init__(self, store: RedisStore, key: str, *, size: int, lease: float) -> None:
        self.store = store
        self.keys = [key]
        self.size = size
        self.lease = lease
        self.lease_ms = max(1, int(lease * 1000))

    async def acquire(self, holder: str) -> bool:
        """Take a lease for `holder`; whether one was free. One that failed may still have been
        granted (it timed out on its way): it is released once Redis answers again, or it would
        hold a slot for `lease` seconds with no call behind it."""
        store = self.store
        args = [self.size, self.lease_ms, holder]
        granted = await store.run(
            lambda client: store.script(LEASE_ACQUIRE)(keys=self.keys, args=args, client=client),
            undo=lambda client: client.zrem(self.keys[0], holder),
        )
        return bool(granted)

    async def renew(self, holder: str) -> None:
        store = self.store
        args = [self.lease_ms, holder]
        await store.run(lambda client: store.script(LEASE_RENEW)(keys=self.keys, args=args, client=client))

    async def release(self, holder: str) -> None:
        """Give `holder`'s lease back (once Redis answers again, if it does not now)."""
        key = self.keys[0]
        try:
            await self.store.run(lambda client: client.zrem(key, holder))
        except StoreUnavailable:
            self.store.when_back(lambda client: client.zrem(key, holder))
            raise
