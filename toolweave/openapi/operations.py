"""The operations of an OpenAPI document, each read once into what its tool needs.

`read_operations(spec, include=, exclude=)` returns one `Operation` per kept `method path`:

- the **name** is the `operationId` (characters a tool name cannot hold become `_`), else
  `method_path` (`get_pets_id`); a name taken twice gets `_2`, `_3`, ...;
- the **input schema** has one argument per path, query, header and cookie parameter (path-level
  ones merged, the operation's winning) and, for a JSON or form body that is an object (an
  `allOf` of objects is merged), one argument per body property; any other body (an array, a
  `oneOf`, text) is the one argument `body` (a string for a body sent as it is: text, XML,
  bytes). A parameter whose name clashes with another is suffixed with its location (`id_query`,
  then `_2`, ... if that is taken too);
- the **output schema** is the 2xx JSON responses' schema, when every 2xx response is JSON and
  they all describe the same (a non-object one is wrapped under `result`, as function tools do);
- the **description** is the summary and the description; annotations follow the method
  (`GET` read-only, `DELETE` destructive, `PUT`/`DELETE` idempotent).

A kept operation the spec gets wrong (an operation or parameter list of the wrong kind, a
parameter without `name`/`in`, a path parameter the path template lacks or the reverse, a
reference to nothing, a multipart-only body) is a `SpecError` when the server is built, naming
the document and the place in it: `the spec dict: paths./a.get: an operation is a mapping, not str`.

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
from typing import Any

from toolweave.core.errors import SpecError
from toolweave.core.names import first_free
from toolweave.core.result import WRAP_KEY
from toolweave.core.tool import ToolAnnotations
from toolweave.openapi.routes import IDEMPOTENT, METHODS, Routes, selected, unmatched_routes
from toolweave.openapi.schemas import SchemaReader, is_object
from toolweave.openapi.spec import Resolver, Spec

LOCATIONS = ("path", "query", "header", "cookie")
_PATH_ITEM_FIELDS = frozenset({"$ref", "summary", "description", "servers", "parameters", *METHODS})
_LATER_OPERATIONS = frozenset({"query", "additionalOperations"})
"""Path item fields OpenAPI 3.2 added, which are not read (yet)."""
_FORM = "application/x-www-form-urlencoded"

logger = logging.getLogger("toolweave.openapi")


@dataclass(frozen=True, slots=True)
class Param:
    """Where one argument goes in the request.

    Attributes:
        arg: The argument's name in the tool.
        name: Its name on the wire (the parameter or body property name).
        location: `path`, `query`, `header`, `cookie`, or `body` (a property of an object body).
        explode: A query array is sent as repeated keys (`True`) or one comma-joined value.
        as_json: The value is sent as JSON text (a parameter described by `content`).
    """

    arg: str
    name: str
    location: str
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
    api: str | None = None,
) -> list[Operation]:
    """Every kept operation of `spec`, in document order.

    Header parameters named in `supplied` (the headers the server adds itself, such as an API
    key) and query parameters named in `supplied_query` (the base URL's own, `?key=...`) are not
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
    operations: list[Operation] = []
    taken: set[str] = set()
    skip = {("header", name.lower()) for name in supplied} | {("query", name) for name in supplied_query}
    listed: list[tuple[str, str, tuple[str, ...]]] = []
    for path, item, resolver in _path_items(spec):
        for method, raw in _methods(spec, path, item):
            at = f"paths.{path}.{method}"
            tags = _tags(spec, raw, at)
            listed.append((method, path, tags))
            if not selected(method, path, tags, include, exclude):
                continue
            try:
                operation = _operation(spec, resolver, at, path, method, item, raw, tags, taken, skip)
            except SpecError:
                raise
            except (TypeError, ValueError, KeyError, AttributeError) as error:
                raise SpecError(f"{spec.where}: {at}: cannot be read ({error})") from None
            _warn_own_servers(spec, at, item, raw)
            taken.add(operation.name)
            operations.append(operation)
    for problem in unmatched_routes(include, exclude, listed):
        logger.warning("%s: %s", api or spec.where, problem)
    return operations


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


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _path_items(spec: Spec) -> Iterator[tuple[str, Mapping[str, Any], Resolver]]:
    """Each path of the document with its path item (a `$ref` followed) and the resolver inside it."""
    for path, item in spec.document["paths"].items():
        if str(path).startswith("x-"):
            continue  # a specification extension, not a path
        at = f"paths.{path}"
        item, resolver = spec.resolve(item, at=at)
        if not isinstance(item, Mapping):
            raise SpecError(f"{spec.where}: {at}: a path item is a mapping of methods to operations, not {_kind(item)}")
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
            raise SpecError(f"{spec.where}: paths.{path}.{method}: an operation is a mapping, not {_kind(raw)}")
        found.append((method, raw))
    return found


def _tags(spec: Spec, raw: Mapping[str, Any], at: str) -> tuple[str, ...]:
    """The operation's tags (routes select by them): a list of names, each a string or a number."""
    tags = raw.get("tags")
    if tags is None:
        return ()
    odd = [tag for tag in tags if not isinstance(tag, str | int | float)] if isinstance(tags, list) else [tags]
    if odd:
        shown = _kind(tags) if not isinstance(tags, list) else f"a list holding a {_kind(odd[0])}"
        raise SpecError(f"{spec.where}: {at}.tags: a list of tag names, not {shown}")
    return tuple(str(tag) for tag in tags)


def _operation(
    spec: Spec,
    resolver: Resolver,
    at: str,
    path: str,
    method: str,
    item: Mapping[str, Any],
    raw: Mapping[str, Any],
    tags: tuple[str, ...],
    taken: set[str],
    skip: set[tuple[str, str]],
) -> Operation:
    reader = SchemaReader(spec, "request", at)
    declared = _parameters(spec, resolver, path, item, at, raw)
    _check_path(spec, path, at, declared)
    declared = [entry for entry in declared if _wire_name(entry.parameter) not in skip]
    body_kind, media_type, body_schema, body_required = _request_body(spec, resolver, raw, reader, at)
    flat = _spread(body_schema) if body_kind in ("json", "form") else None
    names = [entry.parameter["name"] for entry in declared] + (list(flat["properties"]) if flat else [])
    claimed = {name for name in names if names.count(name) == 1} | set(flat["properties"] if flat else ())
    params: list[Param] = []
    properties: dict[str, Any] = {}
    required: list[str] = []
    for entry in declared:
        parameter = entry.parameter
        name, location = parameter["name"], parameter["in"]
        arg = name if names.count(name) == 1 else _unique(f"{name}_{location}", claimed)
        schema, as_json = _parameter_schema(spec, entry, reader)
        explode = parameter.get("explode", parameter.get("style", "form") == "form")
        params.append(Param(arg, name, location, bool(explode), as_json))
        properties[arg] = schema
        if parameter.get("required") or location == "path":
            required.append(arg)
    body_arg = None
    if flat is not None:
        for name, schema in flat["properties"].items():
            params.append(Param(name, name, "body"))
            properties[name] = schema
        required += [name for name in flat.get("required", ()) if name in flat["properties"]]
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
        name=_name(raw.get("operationId"), method, path, taken),
        method=method.upper(),
        path=path,
        params=tuple(params),
        body_arg=body_arg,
        body_kind=body_kind,
        media_type=media_type,
        input_schema=input_schema,
        output_schema=_output_schema(spec, resolver, raw, at),
        description=_description(raw, method, path),
        tags=tags,
        annotations=_annotations(method),
    )


def _unique(arg: str, taken: set[str]) -> str:
    """`arg`, or the first of `arg_2`, `arg_3`, ... no other argument has; it joins `taken`.

    Example:
        >>> _unique("id_query", {"id_query"}), _unique("id_path", set())
        ('id_query_2', 'id_path')
    """
    name = first_free(arg, taken)
    taken.add(name)
    return name


def _wire_name(parameter: Mapping[str, Any]) -> tuple[str, str]:
    """Where a parameter goes and its name there, as the server's own headers and base URL query
    are named (a header's in lowercase: header names are not case-sensitive; a query's as is)."""
    location, name = parameter["in"], parameter["name"]
    return location, name.lower() if location == "header" else name


@dataclass(frozen=True, slots=True)
class _Declared:
    """A parameter as declared: where it is in the document, and the resolver for its `$ref`s."""

    at: str
    parameter: Mapping[str, Any]
    resolver: Resolver


def _parameters(
    spec: Spec, resolver: Resolver, path: str, item: Mapping[str, Any], at: str, raw: Mapping[str, Any]
) -> list[_Declared]:
    """The path item's parameters and the operation's, the operation's winning on the same name and place."""
    merged: dict[tuple[str, str], _Declared] = {}
    for owner, node in ((f"paths.{path}", item), (at, raw)):
        entries = node.get("parameters")
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise SpecError(f"{spec.where}: {owner}.parameters: a list of parameters, not {_kind(entries)}")
        for index, entry in enumerate(entries):
            where = f"{owner}.parameters[{index}]"
            parameter, inner = spec.resolve(entry, resolver, where)
            _check_parameter(spec, parameter, where)
            merged[(parameter["name"], parameter["in"])] = _Declared(where, parameter, inner)
    return list(merged.values())


def _check_parameter(spec: Spec, parameter: Any, at: str) -> None:
    if not isinstance(parameter, Mapping):
        raise SpecError(f"{spec.where}: {at}: a parameter is a mapping with a 'name' and 'in', not {_kind(parameter)}")
    name, location = parameter.get("name"), parameter.get("in")
    if not isinstance(name, str) or not name:
        raise SpecError(f"{spec.where}: {at}: a parameter needs a 'name' (a string)")
    if location not in LOCATIONS:
        found = "" if location is None else f", not {location!r}"
        hint = " (a body is the operation's 'requestBody' in OpenAPI 3)" if location in ("body", "formData") else ""
        raise SpecError(
            f"{spec.where}: {at}: the parameter {name!r} needs 'in': one of {', '.join(LOCATIONS)}{found}{hint}"
        )


def _check_path(spec: Spec, path: str, at: str, declared: Sequence[_Declared]) -> None:
    """Every `{name}` of the path template has a path parameter, and every path parameter a
    `{name}` in the template: else the request cannot be made, or the tool asks for an argument
    the request leaves out."""
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


def _parameter_schema(spec: Spec, entry: _Declared, reader: SchemaReader) -> tuple[dict[str, Any], bool]:
    parameter = entry.parameter
    as_json = "schema" not in parameter and isinstance(parameter.get("content"), Mapping)
    raw: Any = parameter.get("schema", {})
    at = f"{entry.at}.schema"
    if as_json:
        content = parameter["content"]
        media = next(iter(content), None)
        raw = (_media_schema(spec, content, media, f"{entry.at}.content") if media is not None else None) or {}
        at = f"{entry.at}.content.{media}.schema"
    read = reader.read(raw, entry.resolver, at)
    schema: dict[str, Any] = dict(read) if isinstance(read, Mapping) else {}
    if parameter.get("description") and "description" not in schema:
        schema["description"] = parameter["description"]
    return schema, as_json


def _json_media(content: Mapping[str, Any]) -> str | None:
    """The first JSON media type of `content` (`application/json`, `...+json`, with or without parameters)."""
    for media in content:
        bare = str(media).split(";", 1)[0].strip().lower()
        if bare == "application/json" or bare.endswith("+json"):
            return str(media)
    return None


def _media_schema(spec: Spec, content: Mapping[str, Any], media: str, at: str) -> Any:
    """The schema of `content[media]` (None when it gives none); `at` is where `content` is."""
    entry = content[media]
    if entry is None:
        return None
    if not isinstance(entry, Mapping):
        raise SpecError(f"{spec.where}: {at}.{media}: a media type object (with a 'schema'), not {_kind(entry)}")
    return entry.get("schema")


def _request_body(
    spec: Spec, resolver: Resolver, raw: Mapping[str, Any], reader: SchemaReader, at: str
) -> tuple[str | None, str | None, Any, bool]:
    if "requestBody" not in raw:
        return None, None, None, False
    at = f"{at}.requestBody"
    body, inner = spec.resolve(raw["requestBody"], resolver, at)
    if not isinstance(body, Mapping):
        raise SpecError(f"{spec.where}: {at}: a request body is a mapping with 'content', not {_kind(body)}")
    content = body.get("content")
    if not isinstance(content, Mapping) or not content:
        raise SpecError(
            f"{spec.where}: {at}: a request body needs 'content', a mapping of media types "
            f"(application/json, ...) to their schema"
        )
    kind, media = _body_media(spec, content, f"{at}.content")
    schema = _media_schema(spec, content, media, f"{at}.content")
    read: Any = reader.read(schema, inner, f"{at}.content.{media}.schema") if schema is not None else None
    if kind == "raw":
        read = _raw_body_schema(read, media)
    return kind, media, read, bool(body.get("required"))


def _body_media(spec: Spec, content: Mapping[str, Any], at: str) -> tuple[str, str]:
    """How a body is sent, and as what: JSON when the operation takes it, else a form, else the
    first other media type as it is (text, XML, bytes). Multipart alone is refused: no tool
    argument can be sent as one."""
    media = _json_media(content)
    if media is not None:
        return "json", media
    form = next((m for m in content if str(m).split(";", 1)[0].strip().lower() == _FORM), None)
    if form is not None:
        return "form", str(form)
    raw = next((str(m) for m in content if not str(m).lower().startswith("multipart/")), None)
    if raw is None:
        raise SpecError(
            f"{spec.where}: {at}: a {' or '.join(map(str, content))} body cannot be sent (a tool sends "
            f"JSON, a form, or text as it is); leave the operation out with an exclude route"
        )
    return "raw", raw


def _raw_body_schema(read: Any, media: str) -> dict[str, Any]:
    """A body sent as it is (text, XML, bytes) is one string argument: a schema of another kind
    (an XML document described as an object) would have the tool take JSON and send it as `media`."""
    if isinstance(read, Mapping) and read.get("type") == "string":
        return dict(read)
    schema: dict[str, Any] = {"type": "string", "description": f"The request body, sent as {media} as it is."}
    if isinstance(read, Mapping) and read.get("description"):
        schema["description"] = f"{read['description']}\n\n{schema['description']}"
    return schema


def _spread(schema: Any) -> dict[str, Any] | None:
    """An object body as `{"properties", "required"}` to spread into arguments, or None."""
    if not isinstance(schema, Mapping):
        return None
    merged = "allOf" in schema and set(schema) <= {"allOf", "description", "title", "type"}
    parts = schema["allOf"] if merged else [schema]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in parts:
        if not isinstance(part, Mapping) or any(k in part for k in ("oneOf", "anyOf", "allOf", "$ref", "not")):
            return None
        if part.get("type", "object") != "object" or not isinstance(part.get("properties"), Mapping):
            return None
        if part.get("additionalProperties") not in (None, False):
            return None
        properties.update(part["properties"])
        required += [name for name in part.get("required", ()) if name not in required]
    return {"properties": properties, "required": required} if properties else None


def _output_schema(spec: Spec, resolver: Resolver, raw: Mapping[str, Any], at: str) -> dict[str, Any] | None:
    """The 2xx responses' JSON schema, when every 2xx response is JSON and they all describe the
    same (else an answer such as a `204` beside a `200`, or a `202` with a job id beside a `200`
    with the object, could not give the structured content the schema promises)."""
    responses = raw.get("responses")
    if responses is None:
        return None
    if not isinstance(responses, Mapping):
        raise SpecError(f"{spec.where}: {at}.responses: a mapping of status codes to responses, not {_kind(responses)}")
    found: list[tuple[Any, Resolver, str]] = []
    for status in sorted(responses, key=str):
        if not str(status).startswith("2"):
            continue
        where = f"{at}.responses.{status}"
        response, inner = spec.resolve(responses[status], resolver, where)
        if not isinstance(response, Mapping):
            raise SpecError(f"{spec.where}: {where}: a response is a mapping, not {_kind(response)}")
        content = response.get("content") or {}
        if not isinstance(content, Mapping):
            raise SpecError(f"{spec.where}: {where}.content: a mapping of media types to schemas, not {_kind(content)}")
        media = _json_media(content)
        schema = _media_schema(spec, content, media, f"{where}.content") if media else None
        if not schema:
            return None
        found.append((schema, inner, f"{where}.content.{media}.schema"))
    if not found:
        return None
    readers = [SchemaReader(spec, "response", at) for _ in found]
    described = [
        (reader.read(schema, inner, where), reader.defs())
        for reader, (schema, inner, where) in zip(readers, found, strict=True)
    ]
    if any(other != described[0] for other in described[1:]):
        return None
    reader, read = readers[0], described[0][0]
    if not isinstance(read, Mapping):
        return None
    if is_object(read):
        output = {"type": "object", **read}
    else:
        output = {"type": "object", "properties": {"result": read}, "required": ["result"], WRAP_KEY: True}
    if reader.defs():
        output["$defs"] = {**output.get("$defs", {}), **reader.defs()}
    return output


def _name(operation_id: Any, method: str, path: str, taken: set[str]) -> str:
    if operation_id:
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", str(operation_id))[:120]
    else:
        base = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", f"{method}_{path}")).strip("_")[:120]
    return first_free(base or method, taken)


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
