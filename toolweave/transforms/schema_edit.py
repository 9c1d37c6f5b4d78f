"""JSON Schema surgery for argument transforms on tools that only have a schema.

Tools made from Python functions get their exposed schema from a rebuilt pydantic model; tools
with a hand-written (or remote) schema get it from these helpers: rename and drop top-level
properties (also inside top-level `anyOf`/`oneOf`/`allOf` object branches), hoist the `$defs`
of a new type, and prune the `$defs` that nothing references any more.

Example:
    >>> schema = {"type": "object", "$defs": {"Key": {"type": "string"}},
    ...           "properties": {"q": {"type": "string"}, "key": {"$ref": "#/$defs/Key"}},
    ...           "required": ["q", "key"]}
    >>> object_edit(schema, {"q": "query"}, ["query"], {"query": {"type": "string"}})
    {'type': 'object', 'properties': {'query': {'type': 'string'}}, 'required': ['query']}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolweave.core.schema import type_schema

_BRANCHES = ("anyOf", "oneOf", "allOf")
_DEF_KEYS = ("$defs", "definitions")


def _refs(node: Any, found: set[str]) -> None:
    """Collect every `$ref` string below `node`."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.add(value)
            else:
                _refs(value, found)
    elif isinstance(node, list):
        for item in node:
            _refs(item, found)


def prune_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without the `$defs`/`definitions` entries that nothing reachable refers to."""
    pools = {key: schema[key] for key in _DEF_KEYS if isinstance(schema.get(key), Mapping)}
    if not pools:
        return schema
    body = {key: value for key, value in schema.items() if key not in _DEF_KEYS}
    reachable: set[str] = set()
    pending: set[str] = set()
    _refs(body, pending)
    while pending:
        ref = pending.pop()
        if ref in reachable:
            continue
        reachable.add(ref)
        for key, pool in pools.items():
            prefix = f"#/{key}/"
            if ref.startswith(prefix) and ref[len(prefix) :] in pool:
                _refs(pool[ref[len(prefix) :]], pending)
    out = dict(body)
    for key, pool in pools.items():
        kept = {name: sub for name, sub in pool.items() if f"#/{key}/{name}" in reachable}
        if kept:
            out[key] = kept
    return out


def hoist(annotation: Any, defs: dict[str, Any], where: str) -> dict[str, Any]:
    """The JSON Schema of a Python type for one property; its `$defs` are merged into `defs`.

    Raises:
        ValueError: when a definition of the same name but a different shape is already there.
    """
    schema = type_schema(annotation)
    for name, sub in schema.pop("$defs", {}).items():
        if name in defs and defs[name] != sub:
            raise ValueError(f"{where}: the new type's definition {name!r} clashes with an existing one")
        defs[name] = sub
    return schema


def _set_or_drop(out: dict[str, Any], key: str, value: Mapping[str, Any]) -> None:
    if value:
        out[key] = dict(value)
    else:
        out.pop(key, None)


def _edit_object(
    node: Mapping[str, Any], names: Mapping[str, str], keep: frozenset[str], props: Mapping[str, Any] | None
) -> dict[str, Any]:
    out = dict(node)
    if props is not None:
        out["properties"] = dict(props)
    elif isinstance(node.get("properties"), Mapping):
        out["properties"] = {names.get(k, k): v for k, v in node["properties"].items() if k in keep}
    if isinstance(node.get("required"), list):
        required = [names.get(k, k) for k in node["required"] if k in keep]
        if required:
            out["required"] = required
        else:
            out.pop("required")
    if isinstance(node.get("dependentRequired"), Mapping):
        deps = {
            names.get(k, k): [names.get(d, d) for d in v if d in keep]
            for k, v in node["dependentRequired"].items()
            if k in keep and isinstance(v, list)
        }
        _set_or_drop(out, "dependentRequired", {k: v for k, v in deps.items() if v})
    if isinstance(node.get("dependentSchemas"), Mapping):
        subs = {
            names.get(k, k): _edit_object(v, names, keep, None) if isinstance(v, Mapping) else v
            for k, v in node["dependentSchemas"].items()
            if k in keep
        }
        _set_or_drop(out, "dependentSchemas", subs)
    for key in _BRANCHES:
        if isinstance(node.get(key), list):
            out[key] = [_edit_object(b, names, keep, None) if isinstance(b, Mapping) else b for b in node[key]]
    return out


def object_edit(
    schema: Mapping[str, Any],
    names: Mapping[str, str],
    required: Iterable[str],
    properties: Mapping[str, Any],
    defs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The exposed object schema: new `properties` (in order), `required`, renamed branches, pruned defs.

    Args:
        schema: The parent's input schema.
        names: {parent name: exposed name} for the arguments that stay visible.
        required: The exposed names that are required.
        properties: {exposed name: property schema}, in the exposed order.
        defs: The merged `$defs` (parent's plus those of new types); pruned here.
    """
    keep = frozenset(names)
    out = _edit_object(schema, names, keep, properties)
    wanted = list(required)
    if wanted:
        out["required"] = wanted
    else:
        out.pop("required", None)
    if defs is not None:
        if defs:
            out["$defs"] = dict(defs)
        else:
            out.pop("$defs", None)
    return prune_defs(out)
