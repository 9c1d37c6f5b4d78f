"""`TokenCache`: verified tokens remembered until they expire, bounded, least recently used out.

Example:
    >>> cache = TokenCache(size=2, ttl=60)
    >>> cache.put("t1", "ada", expires_at=None)
    >>> cache.get("t1"), cache.get("t2")
    ('ada', None)
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class TokenCache(Generic[T]):
    """Up to `size` entries, each kept `ttl` seconds at most and never past its token's expiry."""

    def __init__(self, size: int, ttl: float) -> None:
        self.size = size
        self.ttl = ttl
        self._entries: OrderedDict[str, tuple[float, T]] = OrderedDict()

    def get(self, token: str) -> T | None:
        """The remembered value, if it has not expired."""
        entry = self._entries.get(token)
        if entry is None:
            return None
        if entry[0] <= time.time():
            del self._entries[token]
            return None
        self._entries.move_to_end(token)
        return entry[1]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def put(self, token: str, value: T, expires_at: float | None) -> None:
        """Remember `value` until `expires_at` (epoch seconds) or `ttl` from now, whichever is first."""
        if self.size <= 0 or self.ttl <= 0:
            return
        until = time.time() + self.ttl
        if expires_at is not None:
            until = min(until, expires_at)
        self._entries[token] = (until, value)
        self._entries.move_to_end(token)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
