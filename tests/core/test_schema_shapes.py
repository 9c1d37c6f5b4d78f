"""`shape_problem` on what JSON Schema cannot apply though the OpenAPI reader never meets it: a `$ref`
that points nowhere in the schema (`PointerToNowhere`), a subschema that is no schema, a
`multipleOf` of 0 (`ZeroDivisionError`); and the forms an older dialect the schema names allows."""

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
        ({"properties": {"id": {"type": "string"}, "a": {"$ref": "#/$defs/A"}}}, "properties.a.$ref is"),
        ({"properties": {"a": {"$dynamicRef": "#node"}}}, "properties.a.$dynamicRef is '#node'"),
        (
            {"$defs": {"N": {"$dynamicAnchor": "node"}}, "properties": {"a": {"$dynamicRef": "#leaf"}}},
            "properties.a.$dynamicRef is '#leaf'",
        ),
        ({"properties": {"a": {"$dynamicRef": "#/$defs/A"}}}, "properties.a.$dynamicRef is '#/$defs/A'"),
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
        {"$defs": {"A": {"$anchor": "a", "type": "string"}}, "properties": {"a": {"$ref": "#a"}}},
        {"$defs": {"N": {"$dynamicAnchor": "node", "type": "string"}}, "properties": {"a": {"$dynamicRef": "#node"}}},
        {"$defs": {"A": {"type": "string"}}, "properties": {"a": {"$dynamicRef": "#/$defs/A"}}},
    ],
)
def test_a_reference_that_resolves_is_no_problem(schema: dict[str, Any]) -> None:
    assert shape_problem(schema) is None
    json_schema_validator(schema).is_valid({"a": "x", "x": 1, "y": 1, "tree": [[]]})  # jsonschema applies it too


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ({"properties": {"a": 5}}, "properties.a is 5: a schema"),
        ({"allOf": [{"type": "string"}, "x"]}, "allOf[1] is 'x': a schema"),
        ({"dependentSchemas": {"a": []}}, "dependentSchemas.a is []: a schema"),
        ({"properties": {"a": {"multipleOf": 0}}}, "properties.a.multipleOf is 0: a number above 0"),
        ({"properties": {"a": {"contains": {}, "minContains": "2"}}}, "properties.a.minContains is '2'"),
        ({"dependentRequired": ["a"]}, "dependentRequired is ['a']: a mapping of property names to lists"),
        ({"patternProperties": {"(": {}}}, "patternProperties is {'(': {}}: a mapping of regular expressions"),
        ({"$schema": "https://json-schema.org/draft/2020-12/schema", "items": [{}]}, "items is [{}]: a schema"),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "items": [5]}, "items[0] is 5: a schema"),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "exclusiveMinimum": True}, "exclusiveMinimum is True"),
    ],
)
def test_what_json_schema_cannot_apply_is_named_where_it_is(schema: dict[str, Any], said: str) -> None:
    problem = shape_problem(schema)
    assert problem is not None and problem.startswith(said), problem


@pytest.mark.parametrize(
    ("schema", "valid", "invalid"),
    [
        (
            {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "number"}, {"type": "string"}]},
            [1, "a"],
            ["a", 1],
        ),
        (
            {"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 0, "exclusiveMinimum": True},
            0.5,
            0,
        ),
        ({"$schema": "https://json-schema.org/draft/2019-09/schema", "items": [{"type": "number"}]}, [1], ["a"]),
    ],
)
def test_an_older_dialects_own_forms_are_applied_as_it_means_them(
    schema: dict[str, Any], valid: Any, invalid: Any
) -> None:
    assert shape_problem(schema) is None
    validator = json_schema_validator(schema)
    assert validator.is_valid(valid) and not validator.is_valid(invalid)
