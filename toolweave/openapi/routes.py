"""`Routes`: which operations of an API become tools, by tag, method and path glob.

A `Routes` matches an operation when every criterion it gives matches (a criterion left out
matches anything): one of `tags` is among the operation's tags, its method is one of `methods`,
its path matches one of the `paths` globs (`*` within a segment, `**` across segments).
`RemoteServer.openapi(include=..., exclude=...)` keeps the operations that match an `include`
(all, when none is given) and no `exclude`; a route that matches no operation of the spec is
said in a warning (`unmatched_routes`), as a tool-name glob that matches no tool is.

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

from toolweave.core.names import suggest

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
IDEMPOTENT = frozenset({"get", "head", "options", "put", "delete"})
"""The methods whose request, sent twice, does what it does once (RFC 9110 §9.2.2): their tools
are marked idempotent, and a request a closed kept-alive connection lost is sent once more."""


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

    def __str__(self) -> str:
        """The route as a config writes it: `{tags: [pets], methods: [GET]}`."""
        given = [(name, getattr(self, name)) for name in ("tags", "methods", "paths") if getattr(self, name)]
        return "{" + ", ".join(f"{name}: [{', '.join(map(str, values))}]" for name, values in given) + "}"


def selected(method: str, path: str, tags: Iterable[str], include: Sequence[Routes], exclude: Sequence[Routes]) -> bool:
    """Whether an operation is kept: it matches an `include` (or there is none) and no `exclude`."""
    tags = tuple(tags)
    if include and not any(routes.matches(method, path, tags) for routes in include):
        return False
    return not any(routes.matches(method, path, tags) for routes in exclude)


Listed = Sequence[tuple[str, str, Sequence[str]]]
"""Every operation of a spec as `(method, path, tags)`."""
_SHOWN = 10
"""How many of a spec's tags, methods or paths a warning lists."""


def unmatched_routes(include: Sequence[Routes], exclude: Sequence[Routes], listed: Listed) -> list[str]:
    """What to say of each route that matches none of the operations `listed`, one line each.

    Example:
        >>> listed = [("get", "/pets", ["pets"]), ("post", "/pets", ["pets"])]
        >>> for line in unmatched_routes([Routes(tags=["pet"])], [Routes(methods=["DELETE"])], listed):
        ...     print(line)
        include route {tags: [pet]} matches no operation (did you mean 'pets'?)
        exclude route {methods: [DELETE]} matches no operation (its methods are GET, POST)
    """
    return [
        f"{kind} route {route} matches no operation ({_advice(route, listed)})"
        for kind, routes in (("include", include), ("exclude", exclude))
        for route in routes
        if not any(route.matches(method, path, tags) for method, path, tags in listed)
    ]


def _advice(route: Routes, listed: Listed) -> str:
    """Which of the route's criteria no operation meets, and what the spec has instead."""
    if not listed:
        return "the spec has none"
    said: list[str] = []
    if route.tags and not any(Routes(tags=route.tags).matches(m, p, tags) for m, p, tags in listed):
        tags = sorted({str(tag) for _, _, found in listed for tag in found})
        close = [hit for hit in (suggest(tag, tags) for tag in route.tags) if hit is not None]
        hint = _some("tags", tags) if tags else "no operation has tags"
        said.append(f"did you mean {close[0]!r}?" if close else hint)
    if route.methods and not any(Routes(methods=route.methods).matches(m, p, t) for m, p, t in listed):
        said.append(_some("methods", sorted({method.upper() for method, _, _ in listed})))
    if route.paths and not any(Routes(paths=route.paths).matches(m, p, t) for m, p, t in listed):
        said.append(_some("paths", list(dict.fromkeys(path for _, path, _ in listed))))
    return "; ".join(said) or "no operation meets all of it at once"


def _some(kind: str, values: Sequence[str]) -> str:
    shown = ", ".join(values[:_SHOWN])
    return f"its {kind} are {shown}" + (f", … ({len(values)} in all)" if len(values) > _SHOWN else "")
