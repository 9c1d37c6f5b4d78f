"""OpenAPI schemas as self-contained JSON Schema (2020-12), built once per operation.

`SchemaReader(spec, direction).read(schema)` follows every `$ref` and inlines what it points
to, so a model reads the whole shape in place; a schema that refers back to itself (a tree, a
linked list) is kept once under `$defs` and referred to there (`defs()` holds them, for the
root of the tool's schema), and so is every referenced schema once a tool's schema is large (a
schema shared at every level would grow exponentially inlined). Along the way:

- OpenAPI 3.0's dialect becomes JSON Schema's: `nullable: true` adds `null` to the type (beside
  a `$ref` too, where generators write it), boolean `exclusiveMinimum`/`exclusiveMaximum` become
  the numeric forms (in a 3.1 spec too: a boolean bound can only mean 3.0's);
- a `oneOf` that a `discriminator` picks from is an `anyOf` (its branches may overlap: the
  discriminator, which JSON Schema lacks, tells them apart);
- properties marked `readOnly` leave a request's schema, `writeOnly` ones a response's (and
  their `required` entries with them): a client never sends the first nor reads the second.

Example:
    >>> from toolweave.openapi.spec import load_spec
    >>> spec = load_spec({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
    ...     "components": {"schemas": {"Pet": {"type": "object", "required": ["id", "name"],
    ...         "properties": {"id": {"type": "integer", "readOnly": True},
    ...                        "name": {"type": "string", "nullable": True}}}}}})
    >>> SchemaReader(spec, "request").read({"$ref": "#/components/schemas/Pet"})
    {'type': 'object', 'required': ['name'], 'properties': {'name': {'type': ['string', 'null']}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from toolweave.core.errors import SpecError
from toolweave.core.schema_shapes import shape_problem
from toolweave.openapi.spec import Resolver, Spec

Direction = Literal["request", "response"]
_MAX_DEPTH = 48
_INLINE_NODES = 20_000
"""Past this many schema nodes in one tool schema, a referenced schema is kept once under `$defs`
instead of inlined at every use (a schema shared at every level grows exponentially inlined)."""
_MAX_NODES = 500_000
"""The most nodes one tool schema may take to read (YAML aliases nest shared nodes, no `$ref`)."""
_NOT_JSON_SCHEMA = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example"})
"""OpenAPI's own schema keywords, left out (`nullable` read into the type first)."""


def _picked_by(node: Mapping[str, Any]) -> str:
    """The keyword a schema's `oneOf` is written as: `anyOf` when a `discriminator` picks the
    branch, since the branches may then overlap (the OpenAPI spec's own `Cat` and `Dog` both
    take any `petType`), which JSON Schema's `oneOf` refuses as matching more than one.

    Example:
        >>> _picked_by({"oneOf": [], "discriminator": {"propertyName": "kind"}}), _picked_by({"oneOf": []})
        ('anyOf', 'oneOf')
    """
    return "anyOf" if isinstance(node.get("discriminator"), Mapping) and "anyOf" not in node else "oneOf"


def is_object(schema: Any) -> bool:
    """Whether `schema` describes only JSON objects (`type: object`, or properties, or an `allOf` of those)."""
    if not isinstance(schema, Mapping) or any(key in schema for key in ("oneOf", "anyOf", "not", "$ref")):
        return False
    kind = schema.get("type")
    if kind is not None:
        return bool(kind == "object")
    if "allOf" in schema:
        return all(is_object(part) for part in schema["allOf"])
    return "properties" in schema


class SchemaReader:
    """Inlines the schemas of one operation (one reader per tool schema, so `$defs` stay its own)."""

    def __init__(self, spec: Spec, direction: Direction, label: str = "") -> None:
        self.spec = spec
        self.label = label
        self._at = label
        self.hidden_flag = "readOnly" if direction == "request" else "writeOnly"
        self._defs: dict[str, Any] = {}
        self._names: dict[int, str] = {}
        self._open: set[int] = set()
        self._nodes = 0
        self._shaped: set[str] = set()

    def read(self, schema: Any, resolver: Resolver | None = None, at: str = "") -> Any:
        """`schema` with every reference inlined (recursive ones under `defs()`); `at` is where it
        is in the document (`paths./a.get.parameters[0].schema`), for messages (else the label).

        Raises:
            SpecError: a reference points nowhere, the schema is too large to read, or a keyword
                has a value JSON Schema cannot apply (`required: true`, `type: file`: `shape_problem`).
        """
        self._at = at or self.label
        read = self._walk(schema, resolver or self.spec.resolver, 0)
        self._check_shapes(read)
        if isinstance(read, dict) and set(read) == {"$ref"} and read["$ref"].startswith("#/$defs/"):
            return dict(self._defs[read["$ref"].removeprefix("#/$defs/")])  # a recursive root, in place
        return read

    def _check_shapes(self, read: Any) -> None:
        """Refuse `read`, or a schema it put under `$defs`, whose keyword JSON Schema cannot apply:
        each call of the tool failed on it as an internal error."""
        fresh = {name: schema for name, schema in self._defs.items() if name not in self._shaped}
        self._shaped.update(fresh)
        for place, schema in (("", read), *((f"$defs.{name}.", schema) for name, schema in fresh.items())):
            problem = shape_problem(schema, references=False)
            if problem is not None:
                where = f"{self.spec.where}: {self._at}" if self._at else self.spec.where
                raise SpecError(f"{where}: {place}{problem}")

    def defs(self) -> dict[str, Any]:
        """The schemas kept once because they refer to themselves, by name."""
        return dict(self._defs)

    def _walk(self, node: Any, resolver: Resolver, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            return {}
        self._nodes += 1
        if self._nodes > _MAX_NODES:
            where = f"{self.spec.where}: {self._at}" if self._at else self.spec.where
            raise SpecError(f"{where}: a schema is too large to read (over {_MAX_NODES} nodes)")
        if isinstance(node, list):
            return [self._walk(item, resolver, depth + 1) for item in node]
        if not isinstance(node, Mapping):
            return node
        if isinstance(node.get("$ref"), str):
            return self._reference(node, resolver, depth)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "properties" and isinstance(value, Mapping):
                out[key] = self._properties(value, resolver, depth)
            elif key in _NOT_JSON_SCHEMA:
                continue
            else:
                out[_picked_by(node) if key == "oneOf" else key] = self._walk(value, resolver, depth + 1)
        return self._dialect(node, out)

    def _properties(self, properties: Mapping[str, Any], resolver: Resolver, depth: int) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for name, schema in properties.items():
            target, _ = self.spec.resolve(schema, resolver, self._at)
            if isinstance(target, Mapping) and target.get(self.hidden_flag) is True:
                continue
            kept[name] = self._walk(schema, resolver, depth + 1)
        return kept

    def _dialect(self, node: Mapping[str, Any], out: dict[str, Any]) -> dict[str, Any]:
        declared = node.get("properties")
        if (
            isinstance(out.get("required"), list)
            and isinstance(out.get("properties"), dict)
            and isinstance(declared, Mapping)
        ):
            dropped = set(declared) - set(out["properties"])
            out["required"] = [name for name in out["required"] if name not in dropped]
            if not out["required"]:
                del out["required"]
        for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if isinstance(out.get(bound), bool) and out.pop(bound) and limit in out:  # 3.0's form, in 3.1 too
                out[bound] = out.pop(limit)
        if self.spec.is_30 and node.get("nullable") is True:
            kind = out.get("type")
            if isinstance(kind, str):
                out["type"] = [kind, "null"]
                if "enum" in out:
                    out["enum"] = [*out["enum"], None]
            elif kind is None:
                return {"anyOf": [out, {"type": "null"}]}
        return out

    def _reference(self, node: Mapping[str, Any], resolver: Resolver, depth: int) -> Any:
        target, inner = self.spec.resolve({"$ref": node["$ref"]}, resolver, self._at)
        key = id(target)
        if key in self._open:  # a schema that refers back to itself: keep it once, under $defs
            return {"$ref": f"#/$defs/{self._name(key, node['$ref'])}"}
        if self._nodes > _INLINE_NODES:  # too large to inline at every use: once, under $defs
            name = self._name(key, node["$ref"])
            if name not in self._defs:
                self._open.add(key)
                try:
                    self._defs[name] = self._walk(target, inner, depth + 1)
                finally:
                    self._open.discard(key)
            inlined = {"$ref": f"#/$defs/{name}"}
        else:
            self._open.add(key)
            try:
                inlined = self._walk(target, inner, depth + 1)
            finally:
                self._open.discard(key)
            if key in self._names:
                self._defs[self._names[key]] = inlined
                inlined = {"$ref": f"#/$defs/{self._names[key]}"}
        siblings = {
            k: self._walk(v, resolver, depth + 1) for k, v in node.items() if k != "$ref" and k not in _NOT_JSON_SCHEMA
        }
        # keywords beside $ref apply with it (OpenAPI 3.1); 3.0 generators write `nullable: true` there
        out = {"allOf": [inlined], **siblings} if siblings else inlined
        return self._dialect(node, out) if isinstance(out, dict) else out

    def _name(self, key: int, ref: str) -> str:
        name = self._names.get(key)
        if name is None:
            base = ref.rsplit("/", 1)[-1] or "schema"
            name, n = base, 2
            while name in self._names.values():
                name, n = f"{base}{n}", n + 1
            self._names[key] = name
        return name
