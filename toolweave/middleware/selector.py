"""`Selector`: which tools a transform or middleware applies to.

A selector matches on exposed name globs, tags, annotation hints and the mount a tool came
through; every given criterion must hold. It is evaluated once per tool when the catalog is
compiled, never per call.

Example:
    >>> from toolweave.core.tool import ToolAnnotations
    >>> Selector(names="gh_*", read_only=True).describe()
    "names=['gh_*'], read_only=True"
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from toolweave.core.tool import Tool


def _as_tuple(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _named(component: Any, pattern: str) -> bool:
    if fnmatch.fnmatchcase(component.name, pattern):
        return True
    uri = getattr(component, "uri", None)
    return uri is not None and fnmatch.fnmatchcase(uri, pattern)


def _no_tool(tool: Any) -> bool:
    """The test of an empty list of names (`tools=[]`): it selects nothing."""
    return False


@dataclass(frozen=True, slots=True)
class Selector:
    """Matches tools by name glob, tags (any of), annotation hints and a predicate.

    Attributes:
        names: Glob patterns on the exposed name (`"gh_*"`); any may match.
        tags: The tool must carry at least one of these tags.
        read_only / idempotent / destructive / open_world: Required annotation hint values.
        where: Any other test, `(tool) -> bool`.
    """

    names: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()
    read_only: bool | None = None
    idempotent: bool | None = None
    destructive: bool | None = None
    open_world: bool | None = None
    where: Callable[[Tool], bool] | None = None

    def __init__(
        self,
        names: str | Iterable[str] | None = None,
        *,
        tags: str | Iterable[str] | None = None,
        read_only: bool | None = None,
        idempotent: bool | None = None,
        destructive: bool | None = None,
        open_world: bool | None = None,
        where: Callable[[Tool], bool] | None = None,
    ) -> None:
        patterns = _as_tuple(names)
        for pattern in patterns:
            try:
                re.compile(fnmatch.translate(pattern))
            except re.error as error:
                raise ValueError(f"invalid name pattern {pattern!r}: {error}") from None
        object.__setattr__(self, "names", patterns)
        object.__setattr__(self, "tags", frozenset(_as_tuple(tags)))
        object.__setattr__(self, "read_only", read_only)
        object.__setattr__(self, "idempotent", idempotent)
        object.__setattr__(self, "destructive", destructive)
        object.__setattr__(self, "open_world", open_world)
        object.__setattr__(self, "where", where)

    @classmethod
    def coerce(cls, value: Selector | str | Iterable[str] | Callable[[Tool], bool] | None) -> Selector | None:
        """A selector from a selector, a glob, a list of globs (an empty one selects nothing), a
        predicate or `None` (all tools).

        Example:
            >>> Selector.coerce([]).describe(), Selector.coerce(None)
            ('no tools', None)
        """
        if value is None or isinstance(value, Selector):
            return value
        if callable(value):
            return cls(where=value)
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Iterable):
            patterns = list(value)
            if not patterns:
                return cls(where=_no_tool)
            if all(isinstance(item, str) for item in patterns):
                return cls(patterns)
        raise TypeError(
            f"tools= takes a glob, a list of globs, a Selector or a function (tool) -> bool, not {value!r}"
        )

    def matches(self, tool: Any) -> bool:
        """Whether `tool` (or a prompt or resource: its name or URI) is selected."""
        if self.names and not any(_named(tool, pattern) for pattern in self.names):
            return False
        if self.tags and not (self.tags & tool.tags):
            return False
        hints = getattr(tool, "annotations", None)
        for wanted, actual in (
            (self.read_only, hints and hints.read_only_hint),
            (self.idempotent, hints and hints.idempotent_hint),
            (self.destructive, hints and hints.destructive_hint),
            (self.open_world, hints and hints.open_world_hint),
        ):
            if wanted is not None and bool(actual) is not wanted:
                return False
        return self.where is None or self.where(tool)

    def describe(self) -> str:
        """A short human-readable form, for `explain`."""
        if self.where is _no_tool:
            return "no tools"
        parts: list[str] = []
        if self.names:
            parts.append(f"names={list(self.names)}")
        if self.tags:
            parts.append(f"tags={sorted(self.tags)}")
        for label in ("read_only", "idempotent", "destructive", "open_world"):
            value: Any = getattr(self, label)
            if value is not None:
                parts.append(f"{label}={value}")
        if self.where is not None:
            parts.append(f"where={getattr(self.where, '__name__', 'predicate')}")
        return ", ".join(parts) or "all tools"
