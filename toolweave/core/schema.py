"""JSON Schema helpers shared by function tools and transforms.

Example:
    >>> prune_titles({"title": "Args", "type": "object",
    ...               "properties": {"title": {"title": "Title", "type": "string"}}})
    {'type': 'object', 'properties': {'title': {'type': 'string'}}}
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import PydanticJsonSchemaWarning

from toolweave.core.result import WRAP_KEY
from toolweave.core.schema_shapes import SUBSCHEMA, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, check_shape


def prune_titles(schema: Any) -> Any:
    """A copy of `schema` without the `title` keywords pydantic generates (property names kept)."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in SUBSCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: prune_titles(sub) for name, sub in value.items()}
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [prune_titles(sub) for sub in value]
        elif key in SUBSCHEMA:
            out[key] = prune_titles(value)
        else:
            out[key] = value
    return out


def object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` as a tool input schema: an object with `properties` (and `required` if any)."""
    out = dict(schema)
    out["type"] = "object"
    out.setdefault("properties", {})
    if not out.get("required"):
        out.pop("required", None)
    return out


def type_schema(annotation: Any) -> dict[str, Any]:
    """The serialisation JSON Schema of a Python type, without generated titles."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
        schema = TypeAdapter(annotation).json_schema(mode="serialization")
    pruned: dict[str, Any] = prune_titles(schema)
    return pruned


def wrap_result_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An output schema for a non-object value: `{"result": value}`, marked as wrapped."""
    inner = dict(schema)
    defs = inner.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
        WRAP_KEY: True,
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped


def output_schema_for(annotation: Any) -> dict[str, Any]:
    """The output schema of a return type: its own schema if it is an object, else wrapped.

    Many tools share a return type, so schemas of hashable annotations are computed once and the
    one dict is shared by every tool returning that type (schemas are never edited in place).
    """
    try:
        schema: dict[str, Any] = _cached_output_schema(annotation)
        return schema
    except TypeError:  # unhashable annotation
        return _output_schema(annotation)


def _output_schema(annotation: Any) -> dict[str, Any]:
    schema = type_schema(annotation)
    if schema.get("type") == "object":
        return schema
    return wrap_result_schema(schema)


_cached_output_schema = functools.lru_cache(maxsize=1024)(_output_schema)


def json_types(prop: Any) -> list[str]:
    """The simple JSON types a property accepts, in the order it names them: its `type` (one or a
    list), else the `type` of each `anyOf`/`oneOf` branch; none when it names none.

    Example:
        >>> json_types({"anyOf": [{"type": "string"}, {"type": "null"}]}), json_types({"type": ["integer", "null"]})
        (['string', 'null'], ['integer', 'null'])
    """
    if not isinstance(prop, Mapping):
        return []
    kind = prop.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    branches = [*(prop.get("anyOf") or ()), *(prop.get("oneOf") or ())]
    return [b["type"] for b in branches if isinstance(b, Mapping) and isinstance(b.get("type"), str)]


def check_output_schema(schema: Any, tool_name: str) -> None:
    """`TypeError` unless `schema`, given as a tool's `output_schema=`, is a JSON Schema of an
    object: MCP sends `structuredContent` as an object, so `type: object` is required at the top,
    and JSON Schema must be able to apply it (`check_shape`, as for a hand-written `Tool`'s schemas:
    every result would fail its check as an internal error).

    Example:
        >>> check_output_schema({"type": "object", "properties": {"n": {"type": "integer"}}}, "count")
        >>> check_output_schema({"type": "string"}, "count")
        Traceback (most recent call last):
        ...
        TypeError: tool 'count': output_schema must describe a JSON object (type: object), not type 'string'
    """
    where = f"tool {tool_name!r}: output_schema"
    if not isinstance(schema, Mapping):
        raise TypeError(f"{where} must be a JSON Schema (a dict) or None, not {type(schema).__name__}")
    if schema.get("type") != "object":
        found = f"type {schema['type']!r}" if "type" in schema else "no type"
        raise TypeError(f"{where} must describe a JSON object (type: object), not {found}")
    check_shape(schema, where)
