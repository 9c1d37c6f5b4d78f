"""Checks of what an in-process `Server.call_tool` is given, each a `TypeError` that shows the
value and the fix (a client's call is checked by the MCP layer before it gets here).

They run off the fast path: `call_tool` takes a dict of `str` keys as it is, copies another
mapping (`as_arguments`), and looks for a name that is not a `str` only when the call failed in
a way such a name causes (`refuse_odd_names`).

Example:
    >>> from types import MappingProxyType
    >>> as_arguments("add", MappingProxyType({"a": 1}))
    {'a': 1}
    >>> as_arguments("add", [1, 2])
    Traceback (most recent call last):
        ...
    TypeError: call_tool('add'): arguments must be a dict of argument name to value (or None), not list [1, 2]: ...
    >>> refuse_odd_names("add", {1: "a"})
    Traceback (most recent call last):
        ...
    TypeError: call_tool('add'): argument names must be str, not int 1
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def described(value: object) -> str:
    """`value` named for a `TypeError`: its type, and itself if short (`list [1, 2]`)."""
    shown = repr(value)
    return f"{type(value).__name__} {shown}" if len(shown) <= 40 else f"a {type(value).__name__}"


def as_arguments(tool: str, arguments: object) -> dict[str, Any]:
    """The arguments of an in-process call to `tool` that are not a dict: a copy if a mapping,
    else a `TypeError` (a list, a string: `arguments.items()` would fail further down)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    raise TypeError(
        f"call_tool({tool!r}): arguments must be a dict of argument name to value (or None), "
        f"not {described(arguments)}: e.g. call_tool({tool!r}, {{'a': 1}})"
    )


def refuse_odd_names(tool: str, arguments: dict[str, Any] | None) -> None:
    """`TypeError` if an argument name of an in-process call to `tool` is not a `str`."""
    odd = next((name for name in arguments or () if not isinstance(name, str)), None)
    if odd is not None:
        raise TypeError(f"call_tool({tool!r}): argument names must be str, not {described(odd)}") from None
