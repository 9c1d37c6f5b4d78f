"""`Routes`: which operations of an API become tools, by tag, method and path glob.

A `Routes` matches an operation when every criterion it gives matches (a criterion left out
matches anything): one of `tags` is among the operation's tags, its method is one of `methods`,
its path matches one of the `paths` globs (`*` within a segment, `**` across segments).
`RemoteServer.openapi(include=..., exclude=...)` keeps the operations that match an `include`
(all, when none is given) and no `exclude`.

Example:
    >>> reads = Routes(methods=["GET"], paths=["/pets/**"])
    >>> reads.matches("get", "/pets/{id}", ["pets"]), reads.matches("delete", "/pets/{id}", [])
    (True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _glob(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"(\*\*|\*)", pattern)
    regex = "".join(".*" if part == "**" else "[^/]*" if part == "*" else re.escape(part) for part in parts)
    return re.compile(regex)


@dataclass(frozen=True)
class Routes:
    """A set of operations, by tag, HTTP method and path glob (see the module docs)."""

    tags: Sequence[str] = ()
    methods: Sequence[str] = ()
    paths: Sequence[str] = ()

    def __post_init__(self) -> None:
        for field_name in ("tags", "methods", "paths"):
            value = getattr(self, field_name)
            if isinstance(value, str):
                object.__setattr__(self, field_name, (value,))
        unknown = [method for method in self.methods if method.lower() not in METHODS]
        if unknown:
            raise ValueError(f"unknown HTTP method(s) {unknown}; expected some of {[m.upper() for m in METHODS]}")

    @cached_property
    def _path_patterns(self) -> tuple[re.Pattern[str], ...]:
        return tuple(_glob(pattern) for pattern in self.paths)

    def matches(self, method: str, path: str, tags: Iterable[str]) -> bool:
        """Whether the operation `method path` with `tags` is in this set."""
        if self.methods and method.lower() not in {m.lower() for m in self.methods}:
            return False
        if self.paths and not any(pattern.fullmatch(path) for pattern in self._path_patterns):
            return False
        return not self.tags or bool(set(self.tags) & set(tags))


def selected(
    method: str, path: str, tags: Iterable[str], include: Sequence[Routes], exclude: Sequence[Routes]
) -> bool:
    """Whether an operation is kept: it matches an `include` (or there is none) and no `exclude`."""
    tags = tuple(tags)
    if include and not any(routes.matches(method, path, tags) for routes in include):
        return False
    return not any(routes.matches(method, path, tags) for routes in exclude)
