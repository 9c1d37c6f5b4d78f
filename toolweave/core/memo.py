"""`Memo`: values worked out once per key and shared, with a bound on how many are kept.

Schemas of common annotations, result converters, a client's `ClientInfo`: many tools (or
requests) need an equal value, and building it once saves time and memory. The keys come from
what users and clients send, so the memo is bounded: when it is full it starts over (keys that
stop being used must not pile up). A key that cannot be hashed is built every time.

Example:
    >>> squares = Memo(limit=2)
    >>> squares.get(3, pow, 3, 2), squares.get(3, pow, 3, 2), squares.get([3], len, "abc")
    (9, 9, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

V = TypeVar("V")
_UNSEEN: Any = object()


class Memo(Generic[V]):
    """At most `limit` values, each built by the first `get` of its key."""

    __slots__ = ("_values", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._values: dict[Any, V] = {}

    def get(self, key: Any, build: Callable[..., V], *args: Any) -> V:
        """The value of `key`, made by `build(*args)` if there is none yet (`None` is a value)."""
        try:
            value: V = self._values.get(key, _UNSEEN)
        except TypeError:  # an unhashable key (e.g. `Annotated` with a list in it)
            return build(*args)
        if value is _UNSEEN:
            if len(self._values) >= self.limit:
                self._values.clear()
            value = self._values[key] = build(*args)
        return value
