"""URI templates for resources (a subset of RFC 6570), compiled once into one regex each.

| expression | matches                                                   | example URI part       |
|------------|-----------------------------------------------------------|------------------------|
| `{name}`   | one path segment (no `/`, `?` or `#`)                     | `Paris`                |
| `{+name}`  | reserved expansion: any text up to `?` or `#`, `/` too    | `docs/2024/notes.md`   |
| `{?a,b}`   | a query string at the end, its parameters in any order, each optional | `?b=2&a=1` |
| `{&c}`     | more query parameters, after `{?...}` or a literal `?`    | `&c=3`                 |

Values are percent-decoded. A parameter takes as much as it can while the rest of the template
still matches (a `{+name}` too; a template has at most one). Query parameters absent from a URI
are absent from the match (the function's defaults apply); parameters the template does not name
are ignored. Matching costs time linear in the URI's length whatever the template: where a
parameter may hold the text after it (`{a}-{b}`, `{+path}/{name}`), `UriTemplate.split` finds the
split a regex would, without trying every split (a 2 KB URI took a regex 11 s against
`{a}-{b}-{c}`, a client's `resources/read` holding the server that long). Other
operators (`{#x}`, `{.x}`, `{/x}`, `{;x}`), modifiers (`{x*}`, `{x:3}`) and several names in
a path expression are refused with a `ValueError` naming the template.

Example:
    >>> template = UriTemplate.parse("weather://{city}/current")
    >>> template.parameters, template.match("weather://Paris/current")
    (('city',), {'city': 'Paris'})
    >>> template.match("weather://Paris/forecast") is None
    True
    >>> UriTemplate.parse("file:///{+path}").match("file:///docs/a%20b.md")
    {'path': 'docs/a b.md'}
    >>> UriTemplate.parse("search://items{?q,limit}").match("search://items?limit=5&q=red%20car")
    {'limit': '5', 'q': 'red car'}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar
from urllib.parse import unquote

from toolweave.core.errors import ArgumentProblem, InvalidArguments

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATH = {"": "(?P<{}>[^/?#]+)", "+": "(?P<{}>[^?#]+)"}
"""The regex of a path expression, by operator: a group named for its parameter."""
_QUERY_START = {"?": r"(?:\?([^#]*))?", "&": "((?:&[^#]*)?)"}
"""The regex of the query tail, by the operator of its first expression: the raw query text."""
_STOPS = {"": "/?#", "+": "?#"}
"""The characters a path parameter never holds, by operator (the complement of its `_PATH` class)."""
_RUNS = {operator: re.compile(f"[^{stops}]+") for operator, stops in _STOPS.items()}
"""A run of characters a path parameter may hold, by operator."""
_SUPPORTED = "{name}, {+name}, {?a,b} and {&a,b}"
T = TypeVar("T")

MAX_URI_LENGTH = 64 * 1024
"""The longest URI (in characters) a client may read, subscribe to or complete; longer ones are
refused before any template is matched. Generous: HTTP servers and browsers stop at 8 to 64 KiB, and
content belongs in a resource's contents, not in its URI. Without it, a URI up to the request
limit (4 MiB over HTTP, more over stdio) costs the server ~1 s of CPU per template lookup."""


def check_length(uri: str) -> str:
    """`uri` if it is at most `MAX_URI_LENGTH` characters long, else `InvalidArguments` naming the
    cap and quoting the start of `uri` (served as JSON-RPC -32602).

    Example:
        >>> check_length("r://" + "a" * MAX_URI_LENGTH)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        toolweave.core.errors.InvalidArguments: Invalid arguments for resource 'r://aaaaaaaaaaaa…':
        - uri: 65540 characters long; a resource URI may have at most 65536 (MAX_URI_LENGTH)
    """
    if len(uri) <= MAX_URI_LENGTH:
        return uri
    problem = f"{len(uri)} characters long; a resource URI may have at most {MAX_URI_LENGTH} (MAX_URI_LENGTH)"
    raise InvalidArguments(f"{uri[:16]}…", [ArgumentProblem("uri", problem)], kind="resource")


def check_uri(uri: str, what: str = "resource URI") -> str:
    """`uri` if it starts with a scheme (`resource:`, `file:`, `https:` ...) and is at most
    `MAX_URI_LENGTH` characters long (no client could read a longer one), else `ValueError`."""
    if not isinstance(uri, str) or not _SCHEME.match(uri):
        raise ValueError(f"{what} {uri!r:.200} is not valid: it must start with a scheme, like 'resource://name'")
    if len(uri) > MAX_URI_LENGTH:
        raise ValueError(
            f"{what} {uri[:40]!r}... is {len(uri)} characters long: no client could read it "
            f"(at most {MAX_URI_LENGTH}, MAX_URI_LENGTH)"
        )
    return uri


def is_template(uri: str) -> bool:
    """Whether `uri` holds at least one `{...}` expression."""
    return "{" in uri or "}" in uri


def query_values(query: str, names: frozenset[str]) -> dict[str, str]:
    """The percent-decoded values of `names` in the query string `query` (without its `?`); the
    first of repeated names wins, others are ignored. `+` stays a `+` (RFC 3986, not a form).

    Example:
        >>> query_values("limit=5&q=a%2Bb+c&limit=9&utm=x", frozenset({"q", "limit"}))
        {'limit': '5', 'q': 'a+b+c'}
    """
    found: dict[str, str] = {}
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if name in names and name not in found:
            found[name] = unquote(value)
    return found


@dataclass(frozen=True, slots=True)
class UriTemplate:
    """A parsed URI template: its parameters, in order, and the compiled pattern.

    Attributes:
        template: The template text.
        parameters: Every parameter, in order (path ones, then query ones).
        query: The query parameters (`{?...}` / `{&...}`): optional in a URI.
        pattern: Each path parameter is a group of its name; with `query`, a last, unnamed group
            holds the raw query text.
        parts: The path's literal texts and `Parameter`s, in order; `split` matches by them.
        tail: The operator (`?` or `&`) of the query tail, `""` without one.
        backtracks: Whether a parameter may hold the literal text after it: `pattern` could then
            take time polynomial in a URI's length, so `split` matches instead.
    """

    template: str
    parameters: tuple[str, ...]
    pattern: re.Pattern[str] = field(repr=False, compare=False)
    query: frozenset[str] = frozenset()
    parts: tuple[str | Parameter, ...] = field(default=(), repr=False, compare=False)
    tail: str = field(default="", repr=False, compare=False)
    backtracks: bool = field(default=False, repr=False, compare=False)

    @property
    def literal(self) -> str:
        """The text before the first parameter (`"weather://"` for `"weather://{city}/now"`)."""
        return self.template.split("{", 1)[0]

    @classmethod
    def parse(cls, template: str) -> UriTemplate:
        """Parse `template`; `ValueError` names what is wrong with it.

        Example:
            >>> UriTemplate.parse("file:///{+path}{?rev}").parameters
            ('path', 'rev')
            >>> UriTemplate.parse("res://{#part}")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            ValueError: resource URI template 'res://{#part}': {#part} is not supported; use {name}, ...
        """
        check_uri(template, "resource URI template")
        regex: list[str] = []
        names: list[str] = []
        query: list[str] = []
        path: list[str] = []  # (the operators of the path parameters)
        parts: list[str | Parameter] = []
        tail = ""
        position = 0
        for match in _EXPRESSION.finditer(template):
            literal = template[position : match.start()]
            _check_literal(template, literal, bool(query))
            operator, expression_names = _expression(template, match.group(1))
            if query or operator in _QUERY_START:
                if not query:
                    _check_query_start(template, operator, template[: match.start()])
                    regex.append(re.escape(literal))
                    regex.append(_QUERY_START[operator])
                    parts.append(literal)
                    tail = operator
                elif operator != "&":
                    raise ValueError(f"resource URI template {template!r}: only {{&...}} may follow a {{?...}}")
                query.extend(expression_names)
            else:
                _check_path(template, literal, path, operator)
                regex.append(re.escape(literal))
                regex.append(_PATH[operator].format(expression_names[0]))
                path.append(operator)
                parts += [literal, Parameter(expression_names[0], _RUNS[operator])]
            names.extend(expression_names)
            position = match.end()
        rest = template[position:]
        _check_literal(template, rest, bool(query))
        _check_names(template, names)
        regex.append(re.escape(rest))
        parts.append(rest)
        kept = tuple(part for part in parts if part)
        pattern = re.compile("".join(regex))
        backtracks = _backtracks(kept, tail)
        return cls(template, tuple(names), pattern, frozenset(query), kept, tail, backtracks)

    def match(self, uri: str) -> dict[str, str] | None:
        """The parameter values if `uri` matches this template, else `None`."""
        if self.backtracks:
            found = self.split(uri)
            if found is None:
                return None
            raw, query_text = found
        else:
            matched = self.pattern.fullmatch(uri)
            if matched is None:
                return None
            raw, query_text = matched.groupdict(), matched.groups()[-1] if self.query else None
        values = {name: unquote(value) for name, value in raw.items()}
        if self.query:
            values.update(query_values(query_text or "", self.query))
        return values

    def split(self, uri: str) -> tuple[dict[str, str], str | None] | None:
        """The raw values of the path parameters in `uri` and its raw query text (`None` without a
        query tail), as `pattern` would split it (each parameter as long as it can be while the
        rest still matches), or `None`; in time linear in `len(uri)` for each part.

        Example:
            >>> UriTemplate.parse("r://{a}-{b}{?q}").split("r://x-y-z?q=1")
            ({'a': 'x-y', 'b': 'z'}, 'q=1')
        """
        path, tail = self.parts, self.tail
        size, ones = len(uri), b"\x01" * (len(uri) + 1)
        # fits[i][p] is 1 when path[i:] and the query tail match uri[p:] (built from the end)
        fits = [bytearray(size + 1)]
        fits[0][size] = 1
        at = uri.find(tail, uri.rfind("#") + 1) if tail else -1
        while at != -1:
            fits[0][at] = 1
            at = uri.find(tail, at + 1)
        for part in reversed(path):
            after, here = fits[-1], bytearray(size + 1)
            if isinstance(part, str):
                at = uri.find(part)
                while at != -1:
                    here[at] = after[at + len(part)]
                    at = uri.find(part, at + 1)
            else:  # in a run of characters it may hold, up to the last place the rest fits
                for run in part.run.finditer(uri):
                    start, end = run.span()
                    last = after.rfind(1, start + 1, end + 1)
                    if last > start:
                        here[start:last] = ones[start:last]
            fits.append(here)
        fits.reverse()
        if not fits[0][0]:
            return None
        values: dict[str, str] = {}
        position = 0
        for index, part in enumerate(path):
            if isinstance(part, str):
                position += len(part)
                continue
            end = part.run.match(uri, position).end()  # type: ignore[union-attr]  # (fits says one starts here)
            cut = fits[index + 1].rfind(1, position + 1, end + 1)
            values[part.name] = uri[position:cut]
            position = cut
        query = None if not tail else uri[position + 1 :] if tail == "?" else uri[position:]
        return values, query


@dataclass(frozen=True, slots=True)
class Parameter:
    """A path parameter of a template: its name and the runs of characters it may hold."""

    name: str
    run: re.Pattern[str]


def _backtracks(parts: tuple[str | Parameter, ...], tail: str) -> bool:
    """Whether a parameter in `parts` may hold the text after it (a parameter, or a literal or
    query `tail` not starting with one of its stops), so that a regex would try every split."""
    for part, after in zip(parts, (*parts[1:], tail), strict=True):
        if isinstance(part, Parameter) and after and (not isinstance(after, str) or part.run.match(after)):
            return True
    return False


def _expression(template: str, body: str) -> tuple[str, list[str]]:
    """The operator (`""`, `+`, `?` or `&`) and the names of the expression `{body}`."""
    operator = body[:1] if body[:1] in "+?&" else ""
    names = body[len(operator) :].split(",")
    if not all(_PARAMETER.fullmatch(name) for name in names) or (operator in _PATH and len(names) > 1):
        raise ValueError(f"resource URI template {template!r}: {{{body}}} is not supported; use {_SUPPORTED}")
    return operator, names


def _check_literal(template: str, literal: str, after_query: bool) -> None:
    """Literal text is free of braces, and nothing but query expressions follows a query one."""
    if "{" in literal or "}" in literal:
        raise ValueError(f"resource URI template {template!r} has an unbalanced brace")
    if after_query and literal:
        raise ValueError(f"resource URI template {template!r}: query expressions ({{?...}}, {{&...}}) must end it")


def _check_query_start(template: str, operator: str, before: str) -> None:
    """A query tail starts with `{?...}`, or with `{&...}` after a literal `?` (`?v=1{&page}`)."""
    if (operator == "?") == ("?" in before):
        where = "a {?...} after a '?'" if operator == "?" else "a {&...} without a '?' before it"
        raise ValueError(f"resource URI template {template!r} has {where}")


def _check_names(template: str, names: list[str]) -> None:
    """Each parameter appears once."""
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ValueError(f"resource URI template {template!r} uses the parameter {name!r} twice")


def _check_path(template: str, literal: str, path: list[str], operator: str) -> None:
    """At most one `{+name}`, and literal text between it and a path parameter next to it: in
    `{+a}{b}` or `{+a}/{+b}` a URI could be split in many ways, and trying them all costs the
    square of its length. `path` holds the operators of the path parameters before this one."""
    if operator == "+" and "+" in path:
        raise ValueError(f"resource URI template {template!r} has more than one {{+name}}")
    if not literal and path and "+" in (path[-1], operator):
        raise ValueError(f"resource URI template {template!r} needs literal text between {{+name}} and a parameter")


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
