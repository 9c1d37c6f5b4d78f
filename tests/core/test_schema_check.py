"""The quick schema check: a `True` is always a value jsonschema accepts; unknown keywords opt out."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolweave.core.schema_check import quick_check

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10}}, "required": ["n"]},
    {"type": "object", "properties": {"s": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^a"}},
     "additionalProperties": False},
    {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}},
    {"type": "array", "items": {"type": ["string", "null"]}, "minItems": 1, "maxItems": 3},
    {"enum": ["a", 1, True, None, 2.5]},
    {"const": 1},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    {"allOf": [{"type": "object", "required": ["a"]}, {"properties": {"a": {"type": "boolean"}}}]},
    {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
     "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                        "required": ["kids"]}}},
    {"type": "number", "exclusiveMaximum": 5, "description": "annotated", "x-extra": 1, "format": "float"},
]  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "n", "s", "kids", "z"]), inner,
                                                                max_size=4),
    max_leaves=12,
)  # fmt: skip


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_a_quick_yes_is_never_a_value_jsonschema_refuses(schema: dict[str, Any], value: Any) -> None:
    check = quick_check(schema)
    assert check is not None
    if check(value):
        assert not list(Draft202012Validator(schema).iter_errors(value))


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_common_valid_values_get_the_quick_yes(schema: dict[str, Any]) -> None:
    samples = [{"n": 3}, {"s": "ab"}, {"x": 1.5}, ["a", None], "a", 1, 2.5, {"a": True}, {"kids": [{"kids": []}]}, 4]
    valid = [v for v in samples if not list(Draft202012Validator(schema).iter_errors(v))]
    check = quick_check(schema)
    assert check is not None
    assert any(check(v) for v in valid)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "contentEncoding": "base64"},
        {"not": {"type": "string"}},
        {"type": "object", "patternProperties": {"^a": {}}},
        {"$ref": "#"},
        {"$ref": "#/$defs/missing"},
        {"enum": [{"a": 1}]},
        {"type": "number", "multipleOf": 2},
        {"if": {"type": "string"}, "then": {"minLength": 2}},
    ],
)
def test_keywords_outside_the_subset_opt_out(schema: dict[str, Any]) -> None:
    assert quick_check(schema) is None


def test_non_finite_numbers_never_get_the_quick_yes() -> None:
    check = quick_check({"type": "object", "properties": {"x": {"type": "number", "minimum": 0}}})
    assert check is not None
    assert not check({"x": math.nan}) and not check({"x": math.inf}) and check({"x": 1})
