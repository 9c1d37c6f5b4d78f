"""Schema surgery on hand-written schemas: valid results, unused $defs pruned, branches renamed."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from toolweave import Tool
from toolweave.transforms import ExcludeArgs, InjectArgs, TransformArgs
from toolweave.transforms.schema_edit import prune_defs


def test_results_are_valid_json_schema(schema_tool: Tool) -> None:
    tool = schema_tool.with_transforms(TransformArgs({"q": "query", "filter": "where"}), InjectArgs(credential={}))
    Draft202012Validator.check_schema(dict(tool.input_schema))


def test_defs_only_used_by_a_hidden_argument_are_pruned(schema_tool: Tool) -> None:
    tool = InjectArgs(credential={"token": "t"}).apply(schema_tool)
    assert set(tool.input_schema["$defs"]) == {"Filter", "Scalar"}


def test_defs_reached_through_other_defs_are_kept(schema_tool: Tool) -> None:
    tool = ExcludeArgs("page").apply(schema_tool)
    assert {"Filter", "Scalar"} <= set(tool.input_schema["$defs"])


def test_renamed_refs_still_resolve(schema_tool: Tool) -> None:
    tool = TransformArgs({"filter": "where"}).apply(schema_tool)
    validator = Draft202012Validator(dict(tool.input_schema))
    assert validator.is_valid({"q": "x", "credential": {"token": "t"}, "where": {"field": "a", "value": 3}})
    assert not validator.is_valid({"q": "x", "credential": {"token": "t"}, "where": {"field": "a", "value": []}})


def test_nested_objects_are_kept_as_they_are(schema_tool: Tool) -> None:
    tool = TransformArgs({"options": "opts"}).apply(schema_tool)
    assert tool.input_schema["properties"]["opts"] == schema_tool.input_schema["properties"]["options"]


def test_top_level_branches_are_renamed_and_pruned() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "email": {"type": "string"}, "token": {"type": "string"}},
        "anyOf": [{"required": ["id"]}, {"required": ["email", "token"]}],
    }
    tool = Tool(name="who", input_schema=schema, run=lambda a, c: None).with_transforms(  # type: ignore[arg-type,return-value]
        TransformArgs({"id": "user_id"}), InjectArgs(token="t")
    )
    assert tool.input_schema["anyOf"] == [{"required": ["user_id"]}, {"required": ["email"]}]
    assert "token" not in str(tool.input_schema)


def test_prune_defs_follows_definitions_too() -> None:
    schema = {"properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {}, "B": {}}}
    assert prune_defs(schema)["definitions"] == {"A": {}}


def test_dependencies_are_renamed_and_hidden_names_dropped() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"card": {"type": "string"}, "cvc": {"type": "string"}, "zz_key": {"type": "string"}},
        "dependentRequired": {"card": ["cvc", "zz_key"], "zz_key": ["card"]},
        "dependentSchemas": {"zz_key": {"required": ["card"]}, "cvc": {"required": ["card"]}},
    }
    tool = Tool(name="pay", input_schema=schema, run=lambda a, c: None).with_transforms(  # type: ignore[arg-type,return-value]
        TransformArgs({"card": "number"}), InjectArgs(zz_key="k")
    )
    assert tool.input_schema["dependentRequired"] == {"number": ["cvc"]}
    assert tool.input_schema["dependentSchemas"] == {"cvc": {"required": ["number"]}}
    assert "zz_key" not in str(tool.input_schema)
