"""`Listeners`: callbacks told about a change, each with its own unsubscribe function.

Example:
    >>> heard = []
    >>> listeners = Listeners()
    >>> stop = listeners.add(heard.append)
    >>> listeners.notify("tools"); stop(); listeners.notify("again")
    >>> heard
    ['tools']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Listeners:
    """A list of callbacks, notified in the order they were added."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[Callable[..., None]] = []

    def add(self, listener: Callable[..., None]) -> Callable[[], None]:
        """Call `listener` on every `notify`; returns a function that stops it (safe to call twice)."""
        self._items.append(listener)
        return lambda: self._items.remove(listener) if listener in self._items else None

    def notify(self, *args: Any) -> None:
        """Call every listener with `args` (a listener may unsubscribe itself meanwhile)."""
        for listener in list(self._items):
            listener(*args)
