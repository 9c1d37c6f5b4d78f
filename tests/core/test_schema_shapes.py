"""`shape_problem`'s check of references: a `$ref` that points nowhere in the schema is named (it
failed every check against the schema with `PointerToNowhere`); one that resolves is no problem."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave.core.schema_check import json_schema_validator
from toolweave.core.schema_shapes import shape_problem


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ({"properties": {"a": {"$ref": "#/$defs/A"}}}, "properties.a.$ref is '#/$defs/A'"),
        ({"$defs": {"B": {}}, "items": {"$ref": "#/$defs/A"}}, "items.$ref is '#/$defs/A'"),
        ({"properties": {"a": {"$ref": "https://example.com/a.json"}}}, "properties.a.$ref is 'https://"),
        ({"properties": {"a": {"$ref": "#anchor"}}}, "properties.a.$ref is '#anchor'"),
        ({"properties": {"a": {"$ref": 3}}}, "properties.a.$ref is 3"),
        ({"anyOf": [{"$ref": "#/anyOf/5"}]}, "anyOf[0].$ref is '#/anyOf/5'"),
    ],
)
def test_a_reference_to_nowhere_is_named_where_it_is(schema: dict[str, Any], said: str) -> None:
    problem = shape_problem(schema)
    assert problem is not None and problem.startswith(said), problem
    assert shape_problem(schema, references=False) is None


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"A": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/A"}}},
        {"definitions": {"A": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/A"}}},
        {"properties": {"tree": {"items": {"$ref": "#"}}}},
        {
            "$defs": {"a/b~c": {}, "d e": {}},
            "properties": {"x": {"$ref": "#/$defs/a~1b~0c"}, "y": {"$ref": "#/$defs/d%20e"}},
        },
        {"anyOf": [{"type": "string"}, {"$ref": "#/anyOf/0"}]},
        {"$id": "https://example.com/s", "$defs": {"A": {"$anchor": "a"}}, "properties": {"a": {"$ref": "#a"}}},
    ],
)
def test_a_reference_that_resolves_is_no_problem(schema: dict[str, Any]) -> None:
    assert shape_problem(schema) is None
    json_schema_validator(schema).is_valid({"a": "x", "x": 1, "y": 1, "tree": [[]]})  # jsonschema applies it too
