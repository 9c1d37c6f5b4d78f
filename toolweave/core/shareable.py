"""`shareable`: whether one Python value may be handed to every call, or each needs its own copy.

A value a tool can change in place (a list, a dict, a model) must not be one object for every
call: what one call appended, the next would see. Hidden defaults and injected constants
(`toolweave.transforms.compile`) and the arguments `Retry` sends again are copied when they
hold one; strings, numbers and tuples of them are shared as they are.

Example:
    >>> shareable("k"), shareable((1, "a")), shareable([]), shareable({"a": 1})
    (True, True, False, False)
"""

from __future__ import annotations

from enum import Enum
from typing import Any


def shareable(value: Any) -> bool:
    """Whether nothing `value` holds could be changed in place."""
    if isinstance(value, tuple | frozenset):
        return all(shareable(item) for item in value)
    return value is None or isinstance(value, str | bytes | int | float | complex | Enum | range)
