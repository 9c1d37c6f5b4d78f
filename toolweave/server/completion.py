"""Argument completion: suggestions for a prompt argument or a resource-template parameter.

A server has at most one completer, registered with `@server.completion`. It receives a
`CompletionRequest` and returns the suggested values (sync or async); clients get at most 100 of
them, with `hasMore` set when there were more. Without a completer, every request gets no values.

Example:
    >>> import anyio
    >>> def cities(request: CompletionRequest) -> list[str]:   # @server.completion registers one
    ...     if request.argument == "city":
    ...         return [c for c in ("Paris", "Parma", "Lima") if c.startswith(request.value)]
    ...     return []
    >>> anyio.run(complete, cities, CompletionRequest("prompt", "trip", "city", "Pa")).values
    ['Paris', 'Parma']
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

MAX_VALUES = 100
"""The most values one completion result may carry (MCP spec)."""


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """What the client wants completed.

    Attributes:
        kind: `"prompt"` (a prompt argument) or `"resource"` (a resource-template parameter).
        name: The prompt name, or the resource template's URI.
        argument: The argument or parameter being completed.
        value: What the user typed so far.
        arguments: Values the client already resolved for the other arguments.
    """

    kind: Literal["prompt", "resource"]
    name: str
    argument: str
    value: str
    arguments: Mapping[str, str] = field(default_factory=dict)


Completer = Callable[[CompletionRequest], "list[str] | Awaitable[list[str]]"]


@dataclass(frozen=True, slots=True)
class Completion:
    """Suggested values (at most `MAX_VALUES`), the total found, and whether more were cut off."""

    values: list[str]
    total: int
    has_more: bool

    @classmethod
    def of(cls, values: list[str], total: int | None = None, has_more: bool = False) -> Completion:
        """`values` cut to the first `MAX_VALUES`, with `total` (default: how many `values` were
        found, before the cut) and `has_more` (also when the cut or `total` leaves some out).

        Example:
            >>> cut = Completion.of([str(n) for n in range(150)])
            >>> len(cut.values), cut.total, cut.has_more
            (100, 150, True)
        """
        total = len(values) if total is None else total
        kept = values[:MAX_VALUES]
        return cls(kept, total, has_more or len(values) > len(kept) or total > len(kept))


async def complete(completer: Completer | None, request: CompletionRequest) -> Completion:
    """Run `completer` (sync or async) on `request`; no completer means no values."""
    if completer is None:
        return Completion([], 0, False)
    found: Any = completer(request)
    if inspect.isawaitable(found):
        found = await found
    return Completion.of([str(value) for value in (found or [])])
