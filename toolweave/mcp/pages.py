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


def page(items: Sequence[T], cursor: str | None, size: int | None) -> tuple[list[T], str | None]:
    """One page of `items` starting at `cursor`, and the cursor of the next page (or None)."""
    if cursor is None or cursor == "":
        start = 0
    elif cursor.isdigit() and int(cursor) <= len(items):
        start = int(cursor)
    else:
        raise MCPError(mt.INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
    if size is None:
        return list(items[start:]), None
    end = start + size
    return list(items[start:end]), (str(end) if end < len(items) else None)


def cached_page(
    cache: dict[str, Any],
    key: str,
    convert: Callable[[Any], T],
    components: Iterable[Any],
    cursor: str | None,
    size: int | None,
) -> tuple[list[T], str | None]:
    """`page` over the wire forms of `components`, converted once per compiled catalog (its `cache`)."""
    wire: list[T] | None = cache.get(key)
    if wire is None:
        wire = cache[key] = [convert(component) for component in components]
    return page(wire, cursor, size)
