"""The operations of an OpenAPI document, each read once into what its tool needs.

`read_operations(spec, include=, exclude=)` returns one `Operation` per kept `method path`:

- the **name** is the `operationId` (characters a tool name cannot hold become `_`), else
  `method_path` (`get_pets_id`); a name taken twice gets `_2`, `_3`, ...;
- the **input schema** has one argument per path, query, header and cookie parameter (path-level
  ones merged, the operation's winning) and, for a JSON or form body that is an object (an
  `allOf` of objects is merged), one argument per body property; any other body (an array, a
  `oneOf`, text) is the one argument `body`. A parameter whose name clashes with another is
  suffixed with its location (`id_query`);
- the **output schema** is the first 2xx JSON response's schema, when every 2xx response is
  JSON (a non-object one is wrapped under `result`, as function tools do);
- the **description** is the summary and the description; annotations follow the method
  (`GET` read-only, `DELETE` destructive, `PUT`/`DELETE` idempotent).

Example:
    >>> from toolweave.openapi.spec import load_spec
    >>> spec = load_spec({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
    ...     "/pets/{id}": {"get": {"summary": "Get a pet", "parameters": [
    ...         {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]}}}})
    >>> [(op.name, op.method, op.path, op.input_schema["required"]) for op in read_operations(spec)]
    [('get_pets_id', 'GET', '/pets/{id}', ['id'])]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolweave.core.errors import SpecError
from toolweave.core.names import first_free
from toolweave.core.result import WRAP_KEY
from toolweave.core.tool import ToolAnnotations
from toolweave.openapi.routes import METHODS, Routes, selected
from toolweave.openapi.schemas import SchemaReader, is_object
from toolweave.openapi.spec import Resolver, Spec

LOCATIONS = ("path", "query", "header", "cookie")


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
    spec: Spec, include: Sequence[Routes] = (), exclude: Sequence[Routes] = (), supplied: Iterable[str] = ()
) -> list[Operation]:
    """Every kept operation of `spec`, in document order.

    Header parameters named in `supplied` (the headers the server adds itself, such as an API
    key) are not arguments.

    Raises:
        SpecError: an operation or a reference in it is malformed (the message names it).
    """
    operations: list[Operation] = []
    taken: set[str] = set()
    skip = {name.lower() for name in supplied}
    for path, item in spec.document["paths"].items():
        item, resolver = spec.resolve(item)
        if not isinstance(item, Mapping):
            raise SpecError(f"{spec.where}: paths[{path!r}] is not a mapping")
        for method in METHODS:
            raw = item.get(method)
            if not isinstance(raw, Mapping):
                continue
            tags = tuple(str(tag) for tag in raw.get("tags") or ())
            if not selected(method, path, tags, include, exclude):
                continue
            try:
                operation = _operation(spec, resolver, path, method, item, raw, tags, taken, skip)
            except SpecError:
                raise
            except (TypeError, ValueError, KeyError, AttributeError) as error:
                raise SpecError(f"{spec.where}: {method.upper()} {path}: cannot be read ({error})") from None
            taken.add(operation.name)
            operations.append(operation)
    return operations


def _operation(
    spec: Spec,
    resolver: Resolver,
    path: str,
    method: str,
    item: Mapping[str, Any],
    raw: Mapping[str, Any],
    tags: tuple[str, ...],
    taken: set[str],
    skip: set[str],
) -> Operation:
    label = f"{method.upper()} {path}"
    reader = SchemaReader(spec, "request", label)
    parameters = [
        parameter
        for parameter in _parameters(spec, resolver, item, raw, f"{method.upper()} {path}")
        if not (parameter["in"] == "header" and str(parameter["name"]).lower() in skip)
    ]
    body_kind, media_type, body_schema, body_required = _request_body(spec, resolver, raw, reader)
    flat = _spread(body_schema) if body_kind in ("json", "form") else None
    names = [parameter["name"] for parameter in parameters] + (list(flat["properties"]) if flat else [])
    params: list[Param] = []
    properties: dict[str, Any] = {}
    required: list[str] = []
    declared = {parameter["name"] for parameter in parameters if parameter["in"] == "path"}
    undeclared = [name for name in re.findall(r"\{([^{}]+)\}", path) if name not in declared]
    if undeclared:
        raise SpecError(f"{spec.where}: {method.upper()} {path}: the path parameter {undeclared[0]!r} is not declared")
    for parameter in parameters:
        name, location = parameter["name"], parameter["in"]
        arg = f"{name}_{location}" if names.count(name) > 1 else name
        schema, as_json = _parameter_schema(spec, resolver, parameter, reader)
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
        body_arg = "body" if "body" not in properties else "request_body"
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
        output_schema=_output_schema(spec, resolver, raw, label),
        description=_description(raw, method, path),
        tags=tags,
        annotations=_annotations(method),
    )


def _parameters(
    spec: Spec, resolver: Resolver, item: Mapping[str, Any], raw: Mapping[str, Any], label: str
) -> list[Mapping[str, Any]]:
    merged: dict[tuple[str, str], Mapping[str, Any]] = {}
    for entry in [*(item.get("parameters") or ()), *(raw.get("parameters") or ())]:
        parameter, _ = spec.resolve(entry, resolver)
        if not isinstance(parameter, Mapping) or "name" not in parameter or parameter.get("in") not in LOCATIONS:
            raise SpecError(f"{spec.where}: {label}: a parameter needs a 'name' and 'in' (one of {LOCATIONS})")
        merged[(parameter["name"], parameter["in"])] = parameter
    return list(merged.values())


def _parameter_schema(
    spec: Spec, resolver: Resolver, parameter: Mapping[str, Any], reader: SchemaReader
) -> tuple[dict[str, Any], bool]:
    as_json = "schema" not in parameter and isinstance(parameter.get("content"), Mapping)
    raw: Any = parameter.get("schema", {})
    if as_json:
        media: Mapping[str, Any] = next(iter(parameter["content"].values()), {})
        raw = media.get("schema", {})
    read = reader.read(raw, resolver)
    schema: dict[str, Any] = dict(read) if isinstance(read, Mapping) else {}
    if parameter.get("description") and "description" not in schema:
        schema["description"] = parameter["description"]
    return schema, as_json


def _json_media(content: Mapping[str, Any]) -> str | None:
    return next((media for media in content if media == "application/json" or media.endswith("+json")), None)


def _request_body(
    spec: Spec, resolver: Resolver, raw: Mapping[str, Any], reader: SchemaReader
) -> tuple[str | None, str | None, Any, bool]:
    if "requestBody" not in raw:
        return None, None, None, False
    body, inner = spec.resolve(raw["requestBody"], resolver)
    content = body.get("content") or {}
    media = _json_media(content)
    kind = "json"
    if media is None:
        media = next((m for m in content if m == "application/x-www-form-urlencoded"), None)
        kind = "form"
    if media is None:
        media, kind = next(iter(content), "application/octet-stream"), "raw"
    schema = (content.get(media) or {}).get("schema")
    read: Any = reader.read(schema, inner) if schema is not None else ({"type": "string"} if kind == "raw" else None)
    return kind, media, read, bool(body.get("required"))


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


def _output_schema(spec: Spec, resolver: Resolver, raw: Mapping[str, Any], label: str) -> dict[str, Any] | None:
    """The first 2xx response's JSON schema, when every 2xx response is JSON (else an answer
    such as a `204` beside a `200` could not give the structured content the schema promises)."""
    responses = raw.get("responses") or {}
    found: list[tuple[Any, Resolver]] = []
    for status in sorted(responses, key=str):
        if not str(status).startswith("2"):
            continue
        response, inner = spec.resolve(responses[status])
        content = (response or {}).get("content") or {}
        media = _json_media(content)
        schema = (content.get(media) or {}).get("schema") if media else None
        if not schema:
            return None
        found.append((schema, inner))
    if not found:
        return None
    schema, inner = found[0]
    reader = SchemaReader(spec, "response", label)
    read = reader.read(schema, inner)
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
        idempotent_hint=method in ("get", "head", "options", "put", "delete") or None,
        open_world_hint=True,
    )
