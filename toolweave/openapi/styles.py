"""How a parameter's value is written into the request, as OpenAPI 3 serializes it by `style` and `explode`.

A primitive is its text alone (`true`, `42`, `Rex`); an array or an object is written as its
parameter's style says, here for `ids = [1, 2]` and `point = {"x": 1, "y": 2}`:

    style (where)           explode  array           object
    simple (path, header)   false    1,2             x,1,y,2
    simple                  true     1,2             x=1,y=2
    label (path)            false    .1,2            .x,1,y,2
    label                   true     .1.2            .x=1.y=2
    matrix (path)           false    ;ids=1,2        ;point=x,1,y,2
    matrix                  true     ;ids=1;ids=2    ;x=1;y=2
    form (query, cookie)    false    ids=1,2         point=x,1,y,2
    form                    true     ids=1&ids=2     x=1&y=2
    spaceDelimited (query)  false    ids=1 2         point=x 1 y 2
    pipeDelimited (query)   false    ids=1|2         point=x|1|y|2
    deepObject (query)      true     (as form)       point[x]=1&point[y]=2

The style defaults to `simple` in the path and headers and `form` in the query and cookies;
`explode` to true for `form`, false for the others (a delimited style exploded is `form`
exploded). In a cookie, `form` exploded is one cookie per item (`ids=1; ids=2`). A value nested
deeper (an object in an array) is compact JSON text; an object's null property is left out.
Path values are percent-encoded and the delimiters are not. The query is encoded by the HTTP
client, delimiters too (`1,2` goes as `1%2C2`, which a server decodes to `1,2` before reading it).

Example:
    >>> in_path("ids", [1, 2], "matrix", explode=True), in_path("id", {"a b": "c/d"}, "simple", explode=True)
    (';ids=1;ids=2', 'a%20b=c%2Fd')
    >>> in_query("point", {"x": 1, "y": 2}, "form", explode=False), in_query("filter", {"status": "open"}, "deepObject")
    ([('point', 'x,1,y,2')], [('filter[status]', 'open')])
    >>> in_header([3, 4], explode=False), in_cookie("ids", [1, 2], explode=True)
    ('3,4', [('ids', '1'), ('ids', '2')])
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}
"""The styles OpenAPI 3 allows for a parameter in each place of the request, its default first."""

_DELIMITERS = {"spaceDelimited": " ", "pipeDelimited": "|"}

Encode = Callable[[str], str]


def scalar_text(value: Any) -> str:
    """A value as one piece of text: `true`/`false` as JSON writes them, null as nothing, a
    number or a string as it is, and an array or an object as compact JSON.

    Example:
        >>> scalar_text(True), scalar_text(2.5), scalar_text(None), scalar_text({"a": [1]})
        ('true', '2.5', '', '{"a":[1]}')
    """
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _as_is(text: str) -> str:
    return text


def _path_encoded(text: str) -> str:
    return quote(text, safe="")


def _properties(value: dict[Any, Any], encode: Encode) -> list[tuple[str, str]]:
    """An object's properties as `(key, text)`, a null one left out."""
    return [(encode(str(key)), encode(scalar_text(inner))) for key, inner in value.items() if inner is not None]


def _joined(value: Any, *, explode: bool, sep: str = ",", encode: Encode = _as_is) -> str:
    """An array's items, or an object's keys and values (`k,v`, or exploded `k=v`), joined by `sep`."""
    if isinstance(value, dict):
        properties = _properties(value, encode)
        if explode:
            return sep.join(f"{key}={text}" for key, text in properties)
        return sep.join(piece for pair in properties for piece in pair)
    if isinstance(value, list):
        return sep.join(encode(scalar_text(item)) for item in value)
    return encode(scalar_text(value))


def _form(name: str, value: Any, *, explode: bool, sep: str = ",", encode: Encode = _as_is) -> list[tuple[str, str]]:
    """The `form` style's `(name, text)` pairs: exploded, one per array item (each under `name`)
    or object property (each under its key); else one, its items joined by `sep`."""
    if explode and isinstance(value, dict):
        return _properties(value, encode)
    if explode and isinstance(value, list):
        return [(encode(name), encode(scalar_text(item))) for item in value]
    return [(encode(name), _joined(value, explode=False, sep=sep, encode=encode))]


def in_path(name: str, value: Any, style: str, *, explode: bool) -> str:
    """The path segment a value fills in, percent-encoded (`simple`, `label` or `matrix`)."""
    if style == "label":
        return "." + _joined(value, explode=explode, sep="." if explode else ",", encode=_path_encoded)
    if style == "matrix":
        pairs = _form(name, value, explode=explode, encode=_path_encoded)
        return "".join(f";{key}={text}" if text else f";{key}" for key, text in pairs)
    return _joined(value, explode=explode, encode=_path_encoded)


def in_query(name: str, value: Any, style: str, *, explode: bool = True) -> list[tuple[str, str]]:
    """The query's `(name, text)` pairs for a value (`form`, a delimited style or `deepObject`)."""
    if style == "deepObject" and isinstance(value, dict):
        return [(f"{name}[{key}]", text) for key, text in _properties(value, _as_is)]
    return _form(name, value, explode=explode, sep=_DELIMITERS.get(style, ","))


def in_header(value: Any, *, explode: bool) -> str:
    """A header's text (`simple`)."""
    return _joined(value, explode=explode)


def in_cookie(name: str, value: Any, *, explode: bool) -> list[tuple[str, str]]:
    """The cookies `(name, text)` a value is sent as (`form`)."""
    return _form(name, value, explode=explode)
