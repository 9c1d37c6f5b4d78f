"""A quick yes for JSON Schema: compiled once, it says a value certainly matches, or "ask jsonschema".

Hand-written schemas (remote tools, OpenAPI operations, `MapResult` outputs) are validated with
`jsonschema`, which walks the schema on every call. Most of them use a small subset of JSON
Schema: types, `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`,
`anyOf`/`oneOf`/`allOf`, local `$ref`s and the common bounds. `quick_check(schema)` compiles
such a schema into nested closures that answer `True` when the value matches; any schema using
something else compiles to `None`. A `False` is never an error by itself: the caller then asks
`jsonschema`, which finds (and words) the problem — so a quick check can only skip work, never
change an outcome. NaN and ±Infinity are never quick-accepted.

Example:
    >>> check = quick_check({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}},
    ...                      "required": ["n"]})
    >>> check({"n": 3}), check({"n": -1}), check({}), check({"n": True})
    (True, False, False, False)
    >>> quick_check({"type": "string", "format": "email", "contentEncoding": "base64"}) is None
    True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import regex

Check = Callable[[Any], bool]
NOT_COMPILED: Any = object()
"""What a holder of a quick check keeps before compiling it (`None` means "not supported")."""
PATTERN_SECONDS = 0.02
"""The longest a schema's `pattern` may search one value (`matches`)."""

_ANNOTATIONS = frozenset(
    {
        "title", "description", "default", "examples", "example", "readOnly", "writeOnly", "deprecated",
        "format", "$comment", "$schema", "discriminator", "xml", "externalDocs", "nullable",
    }
)  # fmt: skip
"""Keywords that never make a value invalid (`format` is an annotation in 2020-12 by default;
`nullable` and the other OpenAPI words are not JSON Schema keywords, so jsonschema ignores them)."""

_TYPES: dict[str, Check] = {
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int or (type(v) is float and math.isfinite(v) and v.is_integer()),
    "number": lambda v: type(v) is int or (type(v) is float and math.isfinite(v)),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
}


class _Unsupported(Exception):
    """The schema uses something the quick check does not know."""


def quick_check(schema: Any) -> Check | None:
    """A function answering `True` when a value certainly matches `schema`, or `None` when the
    schema uses keywords outside the supported subset."""
    defs = schema.get("$defs", {}) if isinstance(schema, Mapping) else {}
    compiled: dict[str, Check] = {}
    try:
        return _Compiler(defs, compiled).compile(schema)
    except _Unsupported:
        return None


def _plain(value: Any) -> bool:
    """Whether `value` is JSON data whose equality Python reads as JSON Schema does (no bool/number mixing)."""
    return type(value) in (str, int, bool, type(None)) or (type(value) is float and math.isfinite(value))


class _Compiler:
    def __init__(self, defs: Any, compiled: dict[str, Check]) -> None:
        self.defs = defs
        self.compiled = compiled

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return lambda value: True
        if schema is False or not isinstance(schema, Mapping):
            raise _Unsupported
        checks: list[Check] = []
        for key, value in schema.items():
            if key in _ANNOTATIONS or key == "$defs" or key.startswith("x-"):
                continue
            if key == "type":
                checks.append(self._type(value))
            elif key == "properties":
                checks.append(self._properties(value))
            elif key == "required":
                checks.append(_required(tuple(value)))
            elif key == "additionalProperties":
                checks.append(self._additional(schema.get("properties", {}), value))
            elif key == "items":
                checks.append(_each(self.compile(value)))
            elif key in ("enum", "const"):
                checks.append(_one_of_values(tuple(value) if key == "enum" else (value,)))
            elif key in ("anyOf", "oneOf", "allOf"):
                checks.append(self._combined(key, [self.compile(part) for part in value]))
            elif key == "$ref":
                checks.append(self._reference(value))
            else:
                checks.append(self._bound(key, value))
        return _all(checks)

    def _type(self, value: Any) -> Check:
        kinds = [value] if isinstance(value, str) else list(value)
        if not all(kind in _TYPES for kind in kinds):
            raise _Unsupported
        tests = tuple(_TYPES[kind] for kind in kinds)
        return tests[0] if len(tests) == 1 else (lambda v: any(test(v) for test in tests))

    def _properties(self, properties: Mapping[str, Any]) -> Check:
        compiled = tuple((name, self.compile(schema)) for name, schema in properties.items())

        def check(value: Any) -> bool:
            if type(value) is not dict:
                return True
            return all(test(value[name]) for name, test in compiled if name in value)

        return check

    def _additional(self, properties: Mapping[str, Any], value: Any) -> Check:
        known = frozenset(properties)
        if value is True:
            return lambda v: True
        if value is False:
            return lambda v: type(v) is not dict or known.issuperset(v)
        extra = self.compile(value)
        return lambda v: type(v) is not dict or all(extra(x) for k, x in v.items() if k not in known)

    def _combined(self, key: str, parts: list[Check]) -> Check:
        if key == "allOf":
            return _all(parts)
        if key == "anyOf":
            return lambda v: any(part(v) for part in parts)
        return lambda v: sum(1 for part in parts if part(v)) == 1  # oneOf: exactly one

    def _reference(self, ref: Any) -> Check:
        name = ref.removeprefix("#/$defs/") if isinstance(ref, str) else None
        if name is None or name == ref or "/" in name or name not in self.defs:
            raise _Unsupported
        if name not in self.compiled:
            self.compiled[name] = lambda v: False  # a recursive reference: compiled below, then looked up
            self.compiled[name] = self.compile(self.defs[name])
        compiled = self.compiled
        return lambda v: compiled[name](v)

    def _bound(self, key: str, limit: Any) -> Check:
        numeric = type(limit) in (int, float) and type(limit) is not bool
        if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") and numeric:
            compare: Callable[[Any], bool] = {
                "minimum": lambda v: v >= limit,
                "maximum": lambda v: v <= limit,
                "exclusiveMinimum": lambda v: v > limit,
                "exclusiveMaximum": lambda v: v < limit,
            }[key]
            return lambda v: type(v) not in (int, float) or (math.isfinite(v) and compare(v))
        if key in ("minLength", "maxLength") and type(limit) is int:
            if key == "minLength":
                return lambda v: type(v) is not str or len(v) >= limit
            return lambda v: type(v) is not str or len(v) <= limit
        if key in ("minItems", "maxItems") and type(limit) is int:
            if key == "minItems":
                return lambda v: type(v) is not list or len(v) >= limit
            return lambda v: type(v) is not list or len(v) <= limit
        if key == "pattern" and isinstance(limit, str):
            try:
                pattern = bounded_pattern(limit)
            except ValueError:
                raise _Unsupported from None
            return lambda v: type(v) is not str or matches(pattern, v)
        raise _Unsupported


@functools.lru_cache(maxsize=1024)
def bounded_pattern(pattern: str) -> regex.Pattern[str]:
    """A schema's `pattern`, compiled once, for `matches` (the `regex` module: its searches take
    a timeout, which Python's `re` does not); `ValueError` if it does not compile.

    `regex` is imported here, by the first schema with a pattern: importing it costs ~17 ms,
    which every server's start would pay otherwise.
    """
    import regex

    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise ValueError(f"pattern {pattern!r} does not compile: {error}") from None


def matches(pattern: regex.Pattern[str], value: str) -> bool:
    """Whether `value` matches a schema's `pattern`; a search still running after
    `PATTERN_SECONDS` counts as no match.

    A schema's pattern runs on every call, over a value the client chose: a pattern that
    backtracks (`^([a-z]+)+$`) given `"aaa...a!"` takes time that doubles with each character,
    and held the event loop (every other client) for seconds.

    Example:
        >>> matches(bounded_pattern("^[a-z]+$"), "abc"), matches(bounded_pattern("^([a-z]+)+$"), "a" * 40 + "!")
        (True, False)
    """
    try:
        return pattern.search(value, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        return False


DIALECTS = {
    "json-schema.org/draft/2020-12/schema": "Draft202012Validator",
    "json-schema.org/draft/2019-09/schema": "Draft201909Validator",
    "json-schema.org/draft-07/schema": "Draft7Validator",
    "json-schema.org/draft-06/schema": "Draft6Validator",
    "json-schema.org/draft-04/schema": "Draft4Validator",
}
"""The dialects a schema may name in `$schema` (its URI without the scheme and a final `#`), each
with the `jsonschema` validator class that applies it."""
LATEST = "json-schema.org/draft/2020-12/schema"


def dialect(schema: Any) -> str:
    """The dialect `schema` is written in (a key of `DIALECTS`): the one its `$schema` names, else
    2020-12 (MCP's default, and what a `$schema` toolweave does not know is read as).

    A TypeScript MCP server's schemas (`zod-to-json-schema`) name draft-07, whose list of `items`
    is a tuple: read as 2020-12, every call of such a tool failed as an internal error.

    Example:
        >>> dialect({"$schema": "http://json-schema.org/draft-07/schema#"}), dialect({}) == LATEST
        ('json-schema.org/draft-07/schema', True)
    """
    named = schema.get("$schema") if isinstance(schema, Mapping) else None
    if not isinstance(named, str):
        return LATEST
    uri = named.removesuffix("#").removeprefix("https://").removeprefix("http://")
    return uri if uri in DIALECTS else LATEST


def json_schema_validator(schema: Mapping[str, Any]) -> Any:
    """`jsonschema`'s validator for `schema` in its `dialect`, its `pattern` keyword bounded as
    `matches` is."""
    return _bounded_validator_class(dialect(schema))(dict(schema))


@functools.cache
def _bounded_validator_class(known: str) -> Any:
    """The validator class of the dialect `known` with `pattern` searched by `matches` (made once a
    dialect: ~0.6 ms)."""
    import jsonschema
    from jsonschema import ValidationError, validators

    def pattern(validator: Any, wanted: str, instance: Any, _: Any) -> Any:
        if validator.is_type(instance, "string") and not matches(bounded_pattern(wanted), instance):
            yield ValidationError(f"{instance!r} does not match {wanted!r}")

    return validators.extend(getattr(jsonschema, DIALECTS[known]), {"pattern": pattern})


def _required(names: tuple[str, ...]) -> Check:
    return lambda v: type(v) is not dict or all(name in v for name in names)


def _each(item: Check) -> Check:
    return lambda v: type(v) is not list or all(item(x) for x in v)


def _one_of_values(allowed: tuple[Any, ...]) -> Check:
    if not all(_plain(option) for option in allowed):
        raise _Unsupported
    return lambda v: _plain(v) and any(type(v) is type(option) and v == option for option in allowed)


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    found = tuple(checks)
    return lambda value: all(check(value) for check in found)
