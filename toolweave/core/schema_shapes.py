"""Whether JSON Schema can apply a schema that toolweave did not write: its keywords have the kind of
value JSON Schema gives them, and its local `$ref`s and `$dynamicRef`s point somewhere.

A schema from outside (an OpenAPI spec, an MCP upstream's tool) or written in Python (a `Tool`'s
schemas, `output_schema=`, `MapResult`) is not checked against JSON Schema's metaschema
(`jsonschema`'s `check_schema` takes 20 to 150 ms a tool schema: seconds for an API of a few
hundred operations). What `jsonschema` cannot apply to a value, though, failed every call of the
tool as an internal error: Swagger 2's habit of `required: true` on a property (`'bool' object is
not iterable`), its `type: file`, a typo such as `type: int` (`UnknownType`), a bound written as a
string (`maxLength: "10"`), draft 4's list of `items`, a `pattern` that does not compile, a `$ref`
or `$dynamicRef` to nothing (`PointerToNowhere`, `NoSuchAnchor`). `shape_problem(schema)` finds
those, walking the schema where JSON Schema has subschemas (never into `enum`, `const`, `default`
or `examples`, which are data), and says where; `check_shape` raises it as the `TypeError` a
schema given in Python gets. A keyword JSON Schema does not know is left alone, as JSON Schema
leaves it. The OpenAPI reader resolves references itself (`references=False`); an upstream's
schema is taken as it comes.

Example:
    >>> shape_problem({"type": "object", "properties": {"name": {"type": "string", "required": True}}})
    "properties.name.required is True: JSON Schema's 'required' is a list of property names, in the object's schema"
    >>> shape_problem({"type": ["string", "null"], "maxLength": 10}) is None
    True
    >>> shape_problem({"properties": {"a": {"$ref": "#/$defs/A"}}})
    "properties.a.$ref is '#/$defs/A': a reference to a place in the schema, and there is none there"
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from toolweave.core.schema_check import LATEST, bounded_pattern, dialect

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COUNTS = (
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
)
SUBSCHEMA = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
)
"""The keywords whose value is one subschema."""
SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
"""The keywords whose value maps names to subschemas."""
SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
"""The keywords whose value is a list of subschemas."""
_REFERENCES = ("$ref", "$dynamicRef")
_ANCHORS = ("$anchor", "$dynamicAnchor")
DRAFT_4 = "json-schema.org/draft-04/schema"


def check_shape(schema: Any, where: str) -> None:
    """`TypeError` saying `where` (`tool 'add': output_schema`) and the `shape_problem` of `schema`,
    if it has one: the one check of a schema given in Python, done where it is given.

    Example:
        >>> check_shape({"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}, "tool 'count': output_schema")
        Traceback (most recent call last):
        ...
        TypeError: tool 'count': output_schema cannot be applied: properties.n.$ref is '#/$defs/N': ...
    """
    problem = shape_problem(schema)
    if problem is not None:
        raise TypeError(f"{where} cannot be applied: {problem}")


def shape_problem(schema: Any, *, references: bool = True) -> str | None:
    """Where and how the first keyword of `schema` with a value of the wrong kind is wrong, or None
    (schemas nearer the top first; a place is written `properties.a.items.`). With `references`,
    a `$ref` or `$dynamicRef` that points neither into `schema` (`#/$defs/A`) nor to one of its
    `$anchor`s or `$dynamicAnchor`s (`#node`) is wrong too (unless `schema` sets a base with `$id`,
    whose resolution is left to `jsonschema`)."""
    resolves = _resolver(schema) if references else None
    written_in = dialect(schema)
    waiting: deque[tuple[str, Any]] = deque([("", schema)])
    while waiting:
        at, node = waiting.popleft()
        if not isinstance(node, Mapping):
            if isinstance(node, bool):
                continue
            return f"{at.removesuffix('.') or 'the schema'} is {_shown(node)}: a schema"
        for key, value in node.items():
            rule = _RULE_OF.get(key)
            if rule is not None and not rule[0](value) and not _older_form(key, value, written_in):
                return f"{at}{key} is {_shown(value)}: {rule[1]}{_hint(key, value)}"
            if key in _REFERENCES and resolves is not None and not resolves(value):
                return f"{at}{key} is {value!r}: a reference to a place in the schema, and there is none there"
            holds = "list" if key == "items" and isinstance(value, list) else _HOLDS.get(key)
            if holds == "schema":
                waiting.append((f"{at}{key}.", value))
            elif holds == "named":
                waiting.extend((f"{at}{key}.{name}.", sub) for name, sub in value.items())
            elif holds == "list":
                waiting.extend((f"{at}{key}[{index}].", sub) for index, sub in enumerate(value))
    return None


def _shown(value: Any) -> str:
    return repr(value) if len(repr(value)) <= 60 else f"{repr(value)[:57]}..."


def _older_form(key: str, value: Any, written_in: str) -> bool:
    """Whether `value` is right for `key` in the dialect the schema names (`$schema`), though not in
    2020-12: a list of `items` (a tuple) before 2020-12, a boolean `exclusiveMinimum` in draft 4."""
    if key == "items" and isinstance(value, list):
        return written_in != LATEST
    if key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
        return written_in == DRAFT_4
    return False


def _resolver(schema: Any) -> Callable[[Any], bool] | None:
    """Whether a reference points into `schema` (a JSON pointer after `#`, RFC 6901) or names one of
    its anchors (`#name`), or None when `schema` sets a base with `$id`, which only `jsonschema`
    resolves."""
    anchors = _anchors(schema)
    if anchors is None:
        return None

    def resolves(ref: Any) -> bool:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return False
        if ref != "#" and not ref.startswith("#/"):
            return ref[1:] in anchors
        node = schema
        for part in ref[2:].split("/") if ref != "#" else ():
            step = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and step in node:
                node = node[step]
            elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
                node = node[int(step)]
            else:
                return False
        return True

    return resolves


def _anchors(schema: Any) -> frozenset[str] | None:
    """The names the `$anchor`s and `$dynamicAnchor`s of `schema` give, or None when a schema in it
    sets a base with `$id` (or draft 4's `id`). Only schemas are read: a property named `id` or
    an `enum` of `$anchor` is data."""
    names: set[str] = set()
    waiting = [schema]
    while waiting:
        node = waiting.pop()
        if not isinstance(node, Mapping):
            continue
        if isinstance(node.get("$id"), str) or isinstance(node.get("id"), str):
            return None
        names.update(node[key] for key in _ANCHORS if isinstance(node.get(key), str))
        for key, value in node.items():
            holds = "list" if key == "items" and isinstance(value, list) else _HOLDS.get(key)
            if holds == "schema":
                waiting.append(value)
            elif holds == "named" and isinstance(value, Mapping):
                waiting.extend(value.values())
            elif holds == "list" and isinstance(value, list):
                waiting.extend(value)
    return frozenset(names)


def _is_type(kind: Any) -> bool:
    if isinstance(kind, list):
        return all(isinstance(k, str) and k in _TYPES for k in kind)
    return isinstance(kind, str) and kind in _TYPES


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return _is_number(value) and value >= 0 and value == int(value)


def _is_name_lists(value: Any) -> bool:
    return isinstance(value, Mapping) and all(_is_names(names) for names in value.values())


def _is_patterns(value: Any) -> bool:
    return isinstance(value, Mapping) and all(_compiles(pattern) for pattern in value)


def _compiles(pattern: Any) -> bool:
    return isinstance(pattern, str) and _compiled(pattern)


@lru_cache(maxsize=1024)  # a spec repeats its patterns; a reload reads them again
def _compiled(pattern: str) -> bool:
    try:
        bounded_pattern(pattern)
    except ValueError:
        return False
    return True


_RULES: tuple[tuple[tuple[str, ...], Callable[[Any], bool], str], ...] = (
    (("type",), _is_type, f"a JSON Schema type is one of {', '.join(sorted(_TYPES))} (or a list of them)"),
    (("required",), _is_names, "JSON Schema's 'required' is a list of property names, in the object's schema"),
    (SUBSCHEMA, lambda value: isinstance(value, Mapping | bool), "a schema"),
    (SUBSCHEMA_MAPS, lambda value: isinstance(value, Mapping), "a mapping of names to schemas"),
    ((*SUBSCHEMA_LISTS, "enum"), lambda value: isinstance(value, list), "a list"),
    (_NUMBERS, _is_number, "a number"),
    (("multipleOf",), lambda value: _is_number(value) and value > 0, "a number above 0"),
    (("dependentRequired",), _is_name_lists, "a mapping of property names to lists of property names"),
    (("patternProperties",), _is_patterns, "a mapping of regular expressions that compile to schemas"),
    (_COUNTS, _is_count, "a whole number, 0 or more"),
    (("pattern",), _compiles, "a regular expression that compiles"),
)
"""Which keywords take which kind of value, said as a message does."""
_RULE_OF = {key: (fits, said) for keys, fits, said in _RULES for key in keys}
_HOLDS = {
    **dict.fromkeys(SUBSCHEMA, "schema"),
    **dict.fromkeys(SUBSCHEMA_MAPS, "named"),
    **dict.fromkeys(SUBSCHEMA_LISTS, "list"),
}
"""Where JSON Schema has subschemas: one, a mapping of them by name, a list of them."""


def _hint(key: str, value: Any) -> str:
    """What a wrong value means where it is a known habit: Swagger 2's `file`, draft 4's list of `items`."""
    if key == "type" and value == "file":
        return " (Swagger 2's `file` is `type: string, format: binary` in OpenAPI 3)"
    if key == "items" and isinstance(value, list):
        return " (a list of schemas, one per place, is `prefixItems` in JSON Schema 2020-12)"
    return ""
