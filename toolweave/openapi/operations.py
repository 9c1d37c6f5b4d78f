"""The operations of an OpenAPI document, each read once into what its tool needs.

`read_operations(spec, include=, exclude=)` returns one `Operation` per kept `method path`:

- the **name** is the `operationId` (characters a tool name cannot hold become `_`), else
  `method_path` (`get_pets_id`); a name taken twice gets `_2`, `_3`, ..., and a name made up
  that way never takes an `operationId`'s: `GET /a` is `get_a_2` beside an `operationId: get_a`;
- the **input schema** has one argument per path, query, header and cookie parameter (path-level
  ones merged, the operation's winning; not the `Accept`, `Content-Type` and `Authorization`
  headers, which OpenAPI 3 says are ignored) and, for a JSON or form body that is an object (an
  `allOf` of objects is merged), one argument per body property; any other body (an array, a
  `oneOf`, text) is the one argument `body` (a string for a body sent as it is: text, XML,
  bytes). An argument is named as its parameter or field, in the characters every model API
  takes (`filter[status]` is `filter_status`: `argument_name`); a parameter whose name clashes
  with another is suffixed with its location (`id_query`, then `_2`, ... if that is taken too);
- the **output schema** is the 2xx JSON responses' schema, when every 2xx response is JSON and
  they all describe the same (a non-object one is wrapped under `result`, as function tools do);
- the **description** is the summary and the description; annotations follow the method
  (`GET` read-only, `DELETE` destructive, `PUT`/`DELETE` idempotent).

This module walks the document and puts each operation together; its parameters are read in
`toolweave.openapi.parameters` (each with its `style` and `explode`, read once here: how a call
writes an array or object argument, `toolweave.openapi.styles`), its request body and responses
in `toolweave.openapi.bodies`.

A kept operation the spec gets wrong (an operation or parameter list of the wrong kind, a
parameter without `name`/`in`, a path without its leading `/`, a path parameter the path
template lacks or the reverse, a reference to nothing, a multipart-only body) is a `SpecError`
when the server is built, naming the document and the place in it:
`the spec dict: paths./a.get: an operation is a mapping, not str`.

Example:
    >>> from toolweave.openapi.spec import load_spec
    >>> spec = load_spec({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
    ...     "/pets/{id}": {"get": {"summary": "Get a pet", "parameters": [
    ...         {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]}}}})
    >>> [(op.name, op.method, op.path, op.input_schema["required"]) for op in read_operations(spec)]
    [('get_pets_id', 'GET', '/pets/{id}', ['id'])]
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from toolweave.core.errors import SpecError
from toolweave.core.names import first_free
from toolweave.core.tool import ToolAnnotations
from toolweave.openapi.bodies import output_schema, request_body, spread
from toolweave.openapi.parameters import (
    check_path,
    declared_parameters,
    form_field_styles,
    parameter_schema,
    parameter_style,
    wire_name,
    without_ignored_headers,
)
from toolweave.openapi.routes import IDEMPOTENT, METHODS, Routes, selected, unmatched_routes
from toolweave.openapi.schemas import SchemaReader
from toolweave.openapi.spec import Resolver, Spec, kind_of

_PATH_ITEM_FIELDS = frozenset({"$ref", "summary", "description", "servers", "parameters", *METHODS})
_MAX_ARGUMENT = 64
_ARGUMENT = re.compile(rf"[A-Za-z0-9_.-]{{1,{_MAX_ARGUMENT}}}")
"""An argument name every model API takes (Claude's and Bedrock's refuse any other)."""
_LATER_OPERATIONS = frozenset({"query", "additionalOperations"})
"""Path item fields OpenAPI 3.2 added, which are not read (yet)."""

logger = logging.getLogger("toolweave.openapi")


@dataclass(frozen=True, slots=True)
class Param:
    """Where one argument goes in the request.

    Attributes:
        arg: The argument's name in the tool.
        name: Its name on the wire (the parameter or body property name).
        location: `path`, `query`, `header`, `cookie`, or `body` (a property of an object body).
        style: How an array or object value is written (`simple`, `form`, `deepObject`, ...:
            `toolweave.openapi.styles`).
        explode: An array or object is written item by item (`ids=1&ids=2`) or joined (`ids=1,2`).
        as_json: The value is sent as JSON text (a parameter described by `content`).
    """

    arg: str
    name: str
    location: str
    style: str = "form"
    explode: bool = True
    as_json: bool = False


@dataclass(frozen=True, slots=True)
class Operation:
    """One API operation, read once: its request plan, schemas and description."""

    name: str
    method: str
    path: str
    params: tuple[Param, ...]
    body_arg: str | None
    """The argument holding the whole body, when the body is not spread into properties."""
    body_kind: str | None
    """`"json"`, `"form"` or `"raw"` (sent as is), or `None` for no body."""
    media_type: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    description: str
    tags: tuple[str, ...]
    annotations: ToolAnnotations

    @property
    def label(self) -> str:
        """`GET /pets/{id}`."""
        return f"{self.method} {self.path}"


def read_operations(
    spec: Spec,
    include: Sequence[Routes] = (),
    exclude: Sequence[Routes] = (),
    supplied: Iterable[str] = (),
    *,
    supplied_query: Iterable[str] = (),
    supplied_cookies: Iterable[str] = (),
    api: str | None = None,
) -> list[Operation]:
    """Every kept operation of `spec`, in document order.

    Header parameters named in `supplied` (the headers the server adds itself, such as an API
    key), query parameters named in `supplied_query` (the base URL's own, `?key=...`) and cookie
    parameters named in `supplied_cookies` (those of the server's `cookie` header) are not
    arguments. Each path item, operation and list of tags is checked before `include`/`exclude`
    select by them; the rest of an operation is read only when it is kept, so an exclude route
    leaves out an operation whose parameters or body the spec gets wrong. A route that matches
    no operation of the spec is said in a warning, naming `api` (by default the spec's place).

    Raises:
        SpecError: the spec is not what OpenAPI says where a kept operation is read (a path item,
            an operation, its tags, parameters, request body or responses of the wrong kind, a
            key such as `GET` that is not a path item field, a reference that points nowhere, a
            path parameter the path template lacks or the reverse) or a body no tool can send
            (multipart). The message names the document, where in it, and what is wrong.

    Example:
        >>> from toolweave.openapi.spec import load_spec
        >>> read_operations(load_spec({"openapi": "3.1.0", "paths": {"/a": {"get": "oops"}}}))
        Traceback (most recent call last):
        toolweave.core.errors.SpecError: the spec dict: paths./a.get: an operation is a mapping, not str
    """
    skip = {("header", name.lower()) for name in supplied} | {("query", name) for name in supplied_query}
    skip |= {("cookie", name) for name in supplied_cookies}
    listed: list[tuple[str, str, tuple[str, ...]]] = []
    kept: list[_Kept] = []
    for path, item, resolver in _path_items(spec):
        for method, raw in _methods(spec, path, item):
            tags = _tags(spec, raw, f"paths.{path}.{method}")
            listed.append((method, path, tags))
            if selected(method, path, tags, include, exclude):
                kept.append(_Kept(path, method, item, raw, resolver, tags))
    operations: list[Operation] = []
    for found, name in zip(kept, _names(kept), strict=True):
        try:
            operation = _operation(spec, found, name, skip)
        except SpecError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            raise SpecError(f"{spec.where}: {found.at}: cannot be read ({error})") from None
        _warn_own_servers(spec, found.at, found.item, found.raw)
        operations.append(operation)
    for problem in unmatched_routes(include, exclude, listed):
        logger.warning("%s: %s", api or spec.where, problem)
    return operations


class _Kept(NamedTuple):
    """An operation `read_operations` keeps, as the document gives it."""

    path: str
    method: str
    item: Mapping[str, Any]
    """Its path item."""
    raw: Mapping[str, Any]
    resolver: Resolver
    """Resolves the references inside its path item."""
    tags: tuple[str, ...]

    @property
    def at(self) -> str:
        """Where it is in the document: `paths./pets.get`."""
        return f"paths.{self.path}.{self.method}"


def _names(kept: Sequence[_Kept]) -> list[str]:
    """Each operation's tool name: its `operationId`, else made of its method and path. The
    `operationId`s are given out first, so a made-up name never takes one; a name taken twice
    gets `_2`, `_3`, ... (document order within each kind).

    Example:
        >>> get_a = _Kept("/a", "get", {}, {}, None, ())
        >>> _names([get_a, get_a._replace(path="/b", raw={"operationId": "get_a"}), get_a])
        ['get_a_2', 'get_a', 'get_a_3']
    """
    names: dict[int, str] = {}
    taken: set[str] = set()
    for index in sorted(range(len(kept)), key=lambda index: not kept[index].raw.get("operationId")):
        operation = kept[index]
        names[index] = first_free(_name(operation.raw.get("operationId"), operation.method, operation.path), taken)
        taken.add(names[index])
    return [names[index] for index in range(len(kept))]


def _warn_own_servers(spec: Spec, at: str, item: Mapping[str, Any], operation: Mapping[str, Any]) -> None:
    """Say so when a kept operation (or its path item) names servers of its own: its calls go to
    the server's one base URL all the same."""
    if operation.get("servers") or item.get("servers"):
        logger.warning(
            "%s: %s: its own 'servers' are not used: its calls go to the base URL of the whole API "
            "(give it an entry of its own, with that base_url and a route that keeps it)",
            spec.where,
            at,
        )


def _path_items(spec: Spec) -> Iterator[tuple[str, Mapping[str, Any], Resolver]]:
    """Each path of the document with its path item (a `$ref` followed) and the resolver inside it."""
    for path, item in spec.document["paths"].items():
        if str(path).startswith("x-"):
            continue  # a specification extension, not a path
        at = f"paths.{path}"
        item, resolver = spec.resolve(item, at=at)
        if not isinstance(item, Mapping):
            raise SpecError(
                f"{spec.where}: {at}: a path item is a mapping of methods to operations, not {kind_of(item)}"
            )
        yield str(path), item, resolver


def _methods(spec: Spec, path: str, item: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The operations of a path item, by method. A key that is no field of a path item is refused:
    a `GET` (methods are lowercase) or a misspelt `parameter` would leave its part out unseen.
    OpenAPI 3.2's `query` and `additionalOperations` are left out with a warning."""
    for key in item:
        if key in _PATH_ITEM_FIELDS or str(key).startswith("x-"):
            continue
        at = f"paths.{path}.{key}"
        if key in _LATER_OPERATIONS:
            logger.warning("%s: %s: not read (OpenAPI 3.2 operations are not tools yet)", spec.where, at)
        elif str(key).lower() in METHODS:
            raise SpecError(f"{spec.where}: {at}: methods are written in lowercase ({str(key).lower()!r})")
        else:
            fields = ", ".join(sorted(_PATH_ITEM_FIELDS - set(METHODS)))
            raise SpecError(
                f"{spec.where}: {at}: not a field of a path item (a lowercase method such as 'get', "
                f"one of {fields}, or an 'x-' extension)"
            )
    found: list[tuple[str, Mapping[str, Any]]] = []
    for method in METHODS:
        if method not in item:
            continue
        raw = item[method]
        if not isinstance(raw, Mapping):
            raise SpecError(f"{spec.where}: paths.{path}.{method}: an operation is a mapping, not {kind_of(raw)}")
        found.append((method, raw))
    return found


def _tags(spec: Spec, raw: Mapping[str, Any], at: str) -> tuple[str, ...]:
    """The operation's tags (routes select by them): a list of names, each a string or a number."""
    tags = raw.get("tags")
    if tags is None:
        return ()
    odd = [tag for tag in tags if not isinstance(tag, str | int | float)] if isinstance(tags, list) else [tags]
    if odd:
        shown = kind_of(tags) if not isinstance(tags, list) else f"a list holding a {kind_of(odd[0])}"
        raise SpecError(f"{spec.where}: {at}.tags: a list of tag names, not {shown}")
    return tuple(str(tag) for tag in tags)


def _operation(spec: Spec, kept: _Kept, tool_name: str, skip: set[tuple[str, str]]) -> Operation:
    path, method, raw, resolver, at = kept.path, kept.method, kept.raw, kept.resolver, kept.at
    reader = SchemaReader(spec, "request", at)
    declared = declared_parameters(spec, resolver, path, kept.item, at, raw)
    check_path(spec, path, at, declared)
    declared = [entry for entry in declared if wire_name(entry.parameter) not in skip]
    declared = without_ignored_headers(spec, at, declared)
    body_kind, media_type, body_schema, body_required = request_body(spec, resolver, raw, reader, at)
    flat = spread(body_schema) if body_kind in ("json", "form") else None
    fields = _field_args(flat["properties"]) if flat else {}
    bases = [argument_name(entry.parameter["name"]) for entry in declared]
    names = bases + list(fields.values())
    claimed = {name for name in names if names.count(name) == 1} | set(fields.values())
    params: list[Param] = []
    properties: dict[str, Any] = {}
    required: list[str] = []
    for entry, base in zip(declared, bases, strict=True):
        parameter = entry.parameter
        name, location = parameter["name"], parameter["in"]
        arg = base if names.count(base) == 1 else _unique(argument_name(f"{base}_{location}"), claimed)
        schema, as_json = parameter_schema(spec, entry, reader)
        style, explode = parameter_style(spec, entry)
        params.append(Param(arg, name, location, style, explode, as_json))
        properties[arg] = schema
        if parameter.get("required") or location == "path":
            required.append(arg)
    body_arg = None
    if flat is not None:
        styles = form_field_styles(spec, resolver, raw, media_type, at) if body_kind == "form" and media_type else {}
        for name, schema in flat["properties"].items():
            params.append(Param(fields[name], name, "body", *styles.get(name, ("form", True, False))))
            properties[fields[name]] = schema
        required += [fields[name] for name in flat.get("required", ()) if name in fields]
    elif body_kind is not None:
        body_arg = "body" if "body" not in properties else first_free("request_body", {*claimed, *properties})
        properties[body_arg] = body_schema if body_schema is not None else {}
        if body_required:
            required.append(body_arg)
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    if reader.defs():
        input_schema["$defs"] = reader.defs()
    return Operation(
        name=tool_name,
        method=method.upper(),
        path=path,
        params=tuple(params),
        body_arg=body_arg,
        body_kind=body_kind,
        media_type=media_type,
        input_schema=input_schema,
        output_schema=output_schema(spec, resolver, raw, at),
        description=_description(raw, method, path),
        tags=kept.tags,
        annotations=_annotations(method),
    )


def argument_name(name: str) -> str:
    """The argument a parameter or body field named `name` is: `name` itself when it is 1 to 64
    characters of `[A-Za-z0-9_.-]`, else those characters alone, `_` for each run of others
    (`filter[status]` is `filter_status`, `$top` is `top`). Claude's and Bedrock's APIs refuse a
    tool whose argument names are not such, and with it every request of the session.

    Example:
        >>> argument_name("X-Id"), argument_name("filter[status]"), argument_name("ids[]"), argument_name("$top")
        ('X-Id', 'filter_status', 'ids', 'top')
    """
    if _ARGUMENT.fullmatch(name):
        return name
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:_MAX_ARGUMENT] or "argument"


def _field_args(properties: Mapping[str, Any]) -> dict[str, str]:
    """The argument of each field of a spread body (`argument_name`), two alike made different
    (`a b` and `a_b`: `a_b`, `a_b_2`)."""
    taken: set[str] = set()
    return {name: _unique(argument_name(name), taken) for name in properties}


def _unique(arg: str, taken: set[str]) -> str:
    """`arg`, or the first of `arg_2`, `arg_3`, ... no other argument has; it joins `taken`.

    Example:
        >>> _unique("id_query", {"id_query"}), _unique("id_path", set())
        ('id_query_2', 'id_path')
    """
    name = first_free(arg, taken)
    taken.add(name)
    return name


def _name(operation_id: Any, method: str, path: str) -> str:
    """The tool name an operation asks for: its `operationId` in the characters a name may hold,
    else `method_path` (`get_pets_id`)."""
    if operation_id:
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", str(operation_id))[:120]
    else:
        base = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", f"{method}_{path}")).strip("_")[:120]
    return base or method


def _description(raw: Mapping[str, Any], method: str, path: str) -> str:
    parts = [str(raw[key]).strip() for key in ("summary", "description") if raw.get(key)]
    if raw.get("deprecated"):
        parts.append("Deprecated.")
    return "\n\n".join(parts) or f"{method.upper()} {path}"


def _annotations(method: str) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=method in ("get", "head", "options") or None,
        destructive_hint=True if method == "delete" else None,
        idempotent_hint=method in IDEMPOTENT or None,
        open_world_hint=True,
    )
