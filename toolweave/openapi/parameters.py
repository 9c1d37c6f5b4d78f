"""An operation's parameters: declared, checked against the path template, and their schemas.

`declared_parameters` merges the path item's parameters with the operation's (the operation's
winning on the same name and place) and refuses one that is not a mapping with a `name` and an
`in` of `LOCATIONS`; `check_path` holds the path template and the path parameters to each other;
`without_ignored_headers` leaves out the header parameters OpenAPI 3 says are ignored
(`Accept`, `Content-Type`, `Authorization`: the media types and the security schemes say
them); `parameter_schema` reads a parameter's schema (or, for one described by `content`, its
media type's schema: it is sent as JSON text), and `parameter_style` its `style` and `explode`
(`toolweave.openapi.styles`). How the parameters become a tool's arguments is
`toolweave.openapi.operations`.

Example:
    >>> from toolweave.openapi.spec import load_spec
    >>> spec = load_spec({"openapi": "3.1.0", "paths": {}})
    >>> item = {"parameters": [{"name": "id", "in": "path", "required": True}]}
    >>> get = {"parameters": [{"name": "id", "in": "query"}]}
    >>> declared = declared_parameters(spec, spec.resolver, "/pets", item, "paths./pets.get", get)
    >>> [(entry.at, entry.parameter["in"]) for entry in declared]
    [('paths./pets.parameters[0]', 'path'), ('paths./pets.get.parameters[0]', 'query')]
    >>> check_path(spec, "/pets", "paths./pets.get", declared)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    toolweave.core.errors.SpecError: the spec dict: paths./pets.parameters[0]: the path parameter 'id' is not in ...
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolweave.core.errors import SpecError
from toolweave.openapi.bodies import media_schema
from toolweave.openapi.schemas import SchemaReader
from toolweave.openapi.spec import Resolver, Spec, kind_of
from toolweave.openapi.styles import STYLES

LOCATIONS = ("path", "query", "header", "cookie")
IGNORED_HEADERS = frozenset({("header", "accept"), ("header", "content-type"), ("header", "authorization")})
"""The header parameters OpenAPI 3 says SHALL be ignored, by `wire_name`."""

logger = logging.getLogger("toolweave.openapi")


@dataclass(frozen=True, slots=True)
class DeclaredParameter:
    """A parameter as declared: where it is in the document, and the resolver for its `$ref`s."""

    at: str
    parameter: Mapping[str, Any]
    resolver: Resolver


def declared_parameters(
    spec: Spec, resolver: Resolver, path: str, item: Mapping[str, Any], at: str, raw: Mapping[str, Any]
) -> list[DeclaredParameter]:
    """The path item's parameters and the operation's, the operation's winning on the same name and place."""
    merged: dict[tuple[str, str], DeclaredParameter] = {}
    for owner, node in ((f"paths.{path}", item), (at, raw)):
        entries = node.get("parameters")
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise SpecError(f"{spec.where}: {owner}.parameters: a list of parameters, not {kind_of(entries)}")
        for index, entry in enumerate(entries):
            where = f"{owner}.parameters[{index}]"
            parameter, inner = spec.resolve(entry, resolver, where)
            _check_parameter(spec, parameter, where)
            merged[(parameter["name"], parameter["in"])] = DeclaredParameter(where, parameter, inner)
    return list(merged.values())


def _check_parameter(spec: Spec, parameter: Any, at: str) -> None:
    if not isinstance(parameter, Mapping):
        raise SpecError(
            f"{spec.where}: {at}: a parameter is a mapping with a 'name' and 'in', not {kind_of(parameter)}"
        )
    name, location = parameter.get("name"), parameter.get("in")
    if not isinstance(name, str) or not name:
        raise SpecError(f"{spec.where}: {at}: a parameter needs a 'name' (a string)")
    if location not in LOCATIONS:
        found = "" if location is None else f", not {location!r}"
        hint = " (a body is the operation's 'requestBody' in OpenAPI 3)" if location in ("body", "formData") else ""
        raise SpecError(
            f"{spec.where}: {at}: the parameter {name!r} needs 'in': one of {', '.join(LOCATIONS)}{found}{hint}"
        )


def check_path(spec: Spec, path: str, at: str, declared: Sequence[DeclaredParameter]) -> None:
    """Every `{name}` of the path template has a path parameter, and every path parameter a
    `{name}` in the template: else the request cannot be made, or the tool asks for an argument
    the request leaves out. The path itself starts with `/` (else it is joined to the base URL's
    last segment: `/v1` and `pets` called `/v1pets`)."""
    if not path.startswith("/"):
        raise SpecError(f"{spec.where}: {at}: a path starts with '/' (write '/{path}')")
    template = re.findall(r"\{([^{}]+)\}", path)
    in_path = {entry.parameter["name"] for entry in declared if entry.parameter["in"] == "path"}
    for name in template:
        if name not in in_path:
            raise SpecError(f"{spec.where}: {at}: the path names {{{name}}}, which no 'in: path' parameter declares")
    for entry in declared:
        name = entry.parameter["name"]
        if entry.parameter["in"] == "path" and name not in template:
            raise SpecError(
                f"{spec.where}: {entry.at}: the path parameter {name!r} is not in the path {path!r} "
                f"(write {{{name}}} in the path, or make it another kind of parameter)"
            )


def without_ignored_headers(spec: Spec, at: str, declared: Sequence[DeclaredParameter]) -> list[DeclaredParameter]:
    """`declared` without the `Accept`, `Content-Type` and `Authorization` header parameters,
    which OpenAPI 3 says are ignored: as arguments, one would override the body's media type or
    ask the model for a credential. One warning names those the operation declares."""
    ignored = [entry for entry in declared if wire_name(entry.parameter) in IGNORED_HEADERS]
    if ignored:
        logger.warning(
            "%s: %s: the header parameter(s) %s are ignored, as OpenAPI 3 says (the media types and the "
            "security schemes set them): they are no arguments of the tool",
            spec.where,
            at,
            ", ".join(entry.parameter["name"] for entry in ignored),
        )
    return [entry for entry in declared if entry not in ignored]


def wire_name(parameter: Mapping[str, Any]) -> tuple[str, str]:
    """Where a parameter goes and its name there, as the server's own headers and base URL query
    are named (a header's in lowercase: header names are not case-sensitive; a query's as is)."""
    location, name = parameter["in"], parameter["name"]
    return location, name.lower() if location == "header" else name


def parameter_schema(spec: Spec, entry: DeclaredParameter, reader: SchemaReader) -> tuple[dict[str, Any], bool]:
    """The parameter's schema (its description added), and whether it is sent as JSON text."""
    parameter = entry.parameter
    as_json = "schema" not in parameter and isinstance(parameter.get("content"), Mapping)
    raw: Any = parameter.get("schema", {})
    at = f"{entry.at}.schema"
    if as_json:
        content = parameter["content"]
        media = next(iter(content), None)
        raw = (media_schema(spec, content, media, f"{entry.at}.content") if media is not None else None) or {}
        at = f"{entry.at}.content.{media}.schema"
    read = reader.read(raw, entry.resolver, at)
    schema: dict[str, Any] = dict(read) if isinstance(read, Mapping) else {}
    if parameter.get("description") and "description" not in schema:
        schema["description"] = parameter["description"]
    return schema, as_json


def parameter_style(spec: Spec, entry: DeclaredParameter) -> tuple[str, bool]:
    """The parameter's `style` (by default `simple` in the path and headers, `form` in the query
    and cookies) and `explode` (by default true for `form` only). A style OpenAPI does not allow
    where the parameter is (`deepObject` in the path) is said in a warning, and the default used.

    Example:
        >>> from toolweave.openapi.spec import load_spec
        >>> spec = load_spec({"openapi": "3.1.0", "paths": {}})
        >>> parameter_style(spec, DeclaredParameter("at", {"name": "ids", "in": "query"}, None))
        ('form', True)
        >>> parameter_style(spec, DeclaredParameter("at", {"name": "id", "in": "path", "style": "label"}, None))
        ('label', False)
    """
    parameter = entry.parameter
    allowed = STYLES[parameter["in"]]
    style = parameter.get("style", allowed[0])
    if style not in allowed:
        logger.warning(
            "%s: %s: the style %r is not one OpenAPI allows in the %s (%s): %r is used",
            spec.where,
            entry.at,
            style,
            parameter["in"],
            ", ".join(allowed),
            allowed[0],
        )
        style = allowed[0]
    return style, bool(parameter.get("explode", style == "form"))


def form_field_styles(
    spec: Spec, resolver: Resolver, raw: Mapping[str, Any], media: str, at: str
) -> dict[str, tuple[str, bool, bool]]:
    """How each field of a form body that its `encoding` names is written, as `(style, explode,
    as_json)`: a form is encoded as a query string is, so a field takes a query parameter's styles
    (Stripe's `metadata` is `deepObject`: `metadata[order]=6735`), and one whose `contentType`
    is JSON is sent as JSON text. A field the `encoding` does not name is written as `form`,
    exploded (OpenAPI's default).

    Example:
        >>> from toolweave.openapi.spec import load_spec
        >>> spec = load_spec({"openapi": "3.1.0", "paths": {}})
        >>> body = {"requestBody": {"content": {"application/x-www-form-urlencoded": {"encoding": {
        ...     "metadata": {"style": "deepObject", "explode": True}, "shape": {"contentType": "application/json"}}}}}}
        >>> form_field_styles(spec, spec.resolver, body, "application/x-www-form-urlencoded", "at")
        {'metadata': ('deepObject', True, False), 'shape': ('form', True, True)}
    """
    body, _ = spec.resolve(raw.get("requestBody"), resolver, f"{at}.requestBody")
    entry = body.get("content", {}).get(media) if isinstance(body, Mapping) else None
    encoding = entry.get("encoding") if isinstance(entry, Mapping) else None
    if not isinstance(encoding, Mapping):
        return {}
    styles: dict[str, tuple[str, bool, bool]] = {}
    for name, field in encoding.items():
        if not isinstance(field, Mapping):
            continue
        where = f"{at}.requestBody.content.{media}.encoding.{name}"
        written = {key: field[key] for key in ("style", "explode") if key in field}
        style, explode = parameter_style(spec, DeclaredParameter(where, {"in": "query", **written}, resolver))
        content_type = str(field.get("contentType", "")).split(";", 1)[0].strip().lower()
        styles[str(name)] = (style, explode, content_type == "application/json" or content_type.endswith("+json"))
    return styles
