"""URI templates for resources (RFC 6570 level 1: `{name}` expansions), compiled once.

A template such as `resource://{owner}/{repo}/readme` matches `resource://acme/site/readme`
with `{"owner": "acme", "repo": "site"}`. Each `{name}` matches one path segment (no `/`,
`?` or `#`); values are percent-decoded.

Example:
    >>> template = UriTemplate.parse("weather://{city}/current")
    >>> template.parameters, template.match("weather://Paris/current")
    (('city',), {'city': 'Paris'})
    >>> template.match("weather://Paris/forecast") is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar
from urllib.parse import unquote

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SEGMENT = "([^/?#]+)"
T = TypeVar("T")


def check_uri(uri: str, what: str = "resource URI") -> str:
    """`uri` if it starts with a scheme (`resource:`, `file:`, `https:` ...), else `ValueError`."""
    if not isinstance(uri, str) or not _SCHEME.match(uri):
        raise ValueError(f"{what} {uri!r} is not valid: it must start with a scheme, like 'resource://name'")
    return uri


def is_template(uri: str) -> bool:
    """Whether `uri` holds at least one `{...}` expression."""
    return "{" in uri or "}" in uri


@dataclass(frozen=True, slots=True)
class UriTemplate:
    """A parsed URI template: its parameters, in order, and the compiled pattern."""

    template: str
    parameters: tuple[str, ...]
    pattern: re.Pattern[str] = field(repr=False, compare=False)

    @property
    def literal(self) -> str:
        """The text before the first parameter (`"weather://"` for `"weather://{city}/now"`)."""
        return self.template.split("{", 1)[0]

    @classmethod
    def parse(cls, template: str) -> UriTemplate:
        """Parse `template`; `ValueError` names what is wrong with it."""
        check_uri(template, "resource URI template")
        regex, names, position = [], [], 0
        for match in _EXPRESSION.finditer(template):
            literal = template[position : match.start()]
            if "{" in literal or "}" in literal:
                raise ValueError(f"resource URI template {template!r} has an unbalanced brace")
            name = match.group(1)
            if not _PARAMETER.fullmatch(name):
                raise ValueError(
                    f"resource URI template {template!r}: {{{name}}} is not supported; "
                    "use simple {name} parameters (letters, digits, '_')"
                )
            if name in names:
                raise ValueError(f"resource URI template {template!r} uses the parameter {name!r} twice")
            regex.append(re.escape(literal))
            regex.append(_SEGMENT)
            names.append(name)
            position = match.end()
        rest = template[position:]
        if "{" in rest or "}" in rest:
            raise ValueError(f"resource URI template {template!r} has an unbalanced brace")
        regex.append(re.escape(rest))
        return cls(template, tuple(names), re.compile("".join(regex)))

    def match(self, uri: str) -> dict[str, str] | None:
        """The parameter values if `uri` matches this template, else `None`."""
        found = self.pattern.fullmatch(uri)
        if found is None:
            return None
        return {name: unquote(value) for name, value in zip(self.parameters, found.groups(), strict=True)}


class TemplateSet(Generic[T]):
    """Many templates indexed once, by the literal text before their first parameter.

    A lookup slices the URI once per distinct literal length (a handful) and checks a dict, so
    only templates whose literal start fits are matched with their regex; the first template (in
    the given order) that matches wins.

    Example:
        >>> templates = TemplateSet([(UriTemplate.parse("a://{x}"), "A"), (UriTemplate.parse("b://{y}/z"), "B")])
        >>> templates.match("b://1/z")
        ('B', {'y': '1'})
    """

    __slots__ = ("_buckets", "_lengths")

    def __init__(self, items: Sequence[tuple[UriTemplate, T]]) -> None:
        self._buckets: dict[int, dict[str, list[tuple[int, UriTemplate, T]]]] = {}
        for order, (template, value) in enumerate(items):
            literal = template.literal
            self._buckets.setdefault(len(literal), {}).setdefault(literal, []).append((order, template, value))
        self._lengths = sorted(self._buckets)

    def match(self, uri: str, accept: Callable[[T], bool] | None = None) -> tuple[T, dict[str, str]] | None:
        """The value of the first template matching `uri` (and whose value `accept` accepts, when
        given) and its parameters, or `None`."""
        candidates: list[tuple[int, UriTemplate, T]] = []
        for length in self._lengths:
            if length > len(uri):
                break
            bucket = self._buckets[length].get(uri[:length])
            if bucket:
                candidates.extend(bucket)
        if len(candidates) > 1:
            candidates.sort(key=lambda candidate: candidate[0])
        for _, template, value in candidates:
            params = template.match(uri)
            if params is not None and (accept is None or accept(value)):
                return value, params
        return None
