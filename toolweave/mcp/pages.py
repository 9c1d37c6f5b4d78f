"""Cursor pagination of list results: the cursor is the index of the next item, as a string.

Example:
    >>> page(list("abcde"), None, 2)
    (['a', 'b'], '2')
    >>> page(list("abcde"), "4", 2)
    (['e'], None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import mcp.types as mt
from mcp import MCPError

T = TypeVar("T")


def _bounds(count: int, cursor: str | None, size: int | None) -> tuple[int, int]:
    """The first and past-the-last index of the page at `cursor` in `count` items.

    A cursor is one we gave: ASCII digits, at most as many as `count` has. Anything else is
    "Invalid cursor" (-32602), never quoted back (a client's input: it may be megabytes long).

    Example:
        >>> _bounds(10, "4", 3), _bounds(10, None, None)
        ((4, 7), (0, 10))
        >>> _bounds(10, "²", 3)
        Traceback (most recent call last):
        mcp.shared.exceptions.MCPError: Invalid cursor
    """
    if cursor is None or cursor == "":
        start = 0
    elif cursor.isascii() and cursor.isdigit() and len(cursor) <= len(str(count)) and int(cursor) <= count:
        start = int(cursor)
    else:
        raise MCPError(mt.INVALID_PARAMS, "Invalid cursor")
    return start, count if size is None else min(start + size, count)


def page(items: Sequence[T], cursor: str | None, size: int | None) -> tuple[list[T], str | None]:
    """One page of `items` starting at `cursor`, and the cursor of the next page (or None)."""
    start, end = _bounds(len(items), cursor, size)
    return list(items[start:end]), (str(end) if end < len(items) else None)


def cached_page(
    cache: dict[str, Any],
    key: str,
    convert: Callable[[Any], T],
    components: Iterable[Any],
    cursor: str | None,
    size: int | None,
) -> tuple[list[T], str | None]:
    """`page` over the wire forms of `components`, each converted once per compiled catalog (its
    `cache`) when a page first reaches it: the first page of a large catalog converts only its own."""
    items = components if isinstance(components, Sequence) else tuple(components)
    start, end = _bounds(len(items), cursor, size)
    wire: list[T] | None = cache.get(key)
    if wire is None:
        wire = cache[key] = []
    if len(wire) < end:
        wire.extend(convert(component) for component in items[len(wire) : end])
    return wire[start:end], (str(end) if end < len(items) else None)
