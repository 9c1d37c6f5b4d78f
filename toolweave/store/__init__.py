"""Where a server's state lives: in this process (`MemoryStore`, the default) or shared (`RedisStore`).

Example:
    >>> open_store(None)
    MemoryStore()
    >>> open_store("redis://127.0.0.1:6379/0")
    RedisStore('redis://127.0.0.1:6379/0')
"""

from __future__ import annotations

from toolweave.store.base import MemoryStore, Store, StoreUnavailable
from toolweave.store.redis_store import RedisStore


def open_store(store: Store | str | None) -> Store:
    """The store for `Server(store=...)`: a `Store` as given, a `redis://` URL, or `None` (in memory)."""
    if store is None:
        return MemoryStore()
    if isinstance(store, Store):
        return store
    if isinstance(store, str):
        return RedisStore(store)
    raise TypeError(f"store must be a Store, a 'redis://...' URL or None, not {type(store).__name__}")


__all__ = ["MemoryStore", "RedisStore", "Store", "StoreUnavailable", "open_store"]
