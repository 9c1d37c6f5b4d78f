"""Validators check names first (unknown, hidden), then values; problems name paths, never values."""

from __future__ import annotations

import time
from typing import Any

import pytest
from pydantic import create_model

from toolweave import Server
from toolweave.core.validation import ArgumentErrors, LazyModelValidator, ModelValidator, SchemaValidator
from toolweave.testing import connect, fake_tool

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string", "minLength": 2}, "n": {"type": "integer", "maximum": 5}},
    "required": ["q"],
}


def problems(validator: SchemaValidator, arguments: dict[str, object], **kw: bool) -> dict[str, str]:
    with pytest.raises(ArgumentErrors) as raised:
        validator.validate(arguments, **kw)
    return {p.path: p.message for p in raised.value.problems}


def test_unknown_arguments_are_refused_by_name() -> None:
    assert problems(SchemaValidator(SCHEMA), {"q": "ok", "zz": 1}) == {"zz": "unexpected argument"}


def test_unknown_arguments_can_be_ignored() -> None:
    assert SchemaValidator(SCHEMA).validate({"q": "ok", "zz": 1}, reject_extra=False) == {"q": "ok"}


@pytest.mark.parametrize("spelling", ["user_id", "USER_ID", "User_Id"])
def test_hidden_arguments_are_dropped_like_unknown_ones_in_any_case_when_extras_are_ignored(spelling: str) -> None:
    validator = SchemaValidator(SCHEMA, forbidden=["user_id"])
    assert validator.validate({"q": "ok", spelling: "spoof"}, reject_extra=False) == {"q": "ok"}  # no oracle


def test_value_problems_name_the_path_and_never_echo_the_value() -> None:
    found = problems(SchemaValidator(SCHEMA), {"q": "s3cr3t-x", "n": 99})
    assert found == {"n": "must satisfy maximum 5"}
    found = problems(SchemaValidator(SCHEMA), {"n": "s3cr3t"})
    assert found == {"q": "Field required", "n": "expected integer"}
    assert "s3cr3t" not in str(found)


def test_a_schema_without_properties_accepts_any_names() -> None:
    assert SchemaValidator({"type": "object"}).validate({"anything": 1}) == {"anything": 1}


def test_a_lazy_model_validator_builds_its_model_at_the_first_validation() -> None:
    builds: list[int] = []

    def build() -> Any:
        builds.append(1)
        return create_model("m", n=(int, ...)), None

    validator = LazyModelValidator(build, forbidden=["user"])
    assert not validator.built and not hasattr(validator, "inner") and builds == []
    assert validator.validate({"n": "3"}) == {"n": 3}
    assert validator.built and builds == [1]
    with pytest.raises(ArgumentErrors, match="user: unexpected argument"):
        validator.validate({"n": 1, "user": "x"})
    assert builds == [1]


def test_a_lazy_model_validator_builds_when_a_transform_reads_its_model() -> None:
    model = create_model("m", n=(int, ...))
    validator = LazyModelValidator(lambda: (model, None))
    assert isinstance(validator, ModelValidator)
    assert validator.model is model and validator.allowed == frozenset({"n"}) and validator.built


NODE = {
    "type": "object",
    "properties": {"node": {"$ref": "#/$defs/Node"}},
    "$defs": {"Node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}},
}


def nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"v": 0}
    for level in range(1, depth):
        node = {"v": level, "next": node}
    return node


def test_a_recursive_schema_checks_a_value_of_any_depth_it_can_follow() -> None:
    assert SchemaValidator(NODE).validate({"node": nested(40)})["node"]["v"] == 39
    assert problems(SchemaValidator(NODE), {"node": {"v": "x"}}) == {"node.v": "expected integer"}


def test_a_value_nested_past_the_interpreters_recursion_is_refused_as_an_argument_problem() -> None:
    # Both the quick check and jsonschema recurse per level: past Python's limit, the call is
    # refused like any other bad argument (not an internal error of the server).
    assert problems(SchemaValidator(NODE), {"node": nested(5_000)}) == {
        "": "the arguments are nested too deeply to be checked"
    }


async def test_a_too_deep_value_answers_the_client_with_an_error_result_and_the_server_keeps_serving() -> None:
    from toolweave import Server
    from toolweave.testing import connect, fake_tool

    server = Server("deep")
    server.add_tool(fake_tool("walk", NODE))
    async with connect(server) as client:
        refused = await client.call_tool("walk", {"node": nested(250)})  # (the client sends up to ~290)
        served = await client.call_tool("walk", {"node": nested(3)})
    assert refused.is_error
    assert refused.content[0].text == (
        "Invalid arguments for tool 'walk':\n- the arguments are nested too deeply to be checked"
    )
    assert not served.is_error and served.structured_content["node"]["v"] == 2


async def test_a_pattern_that_backtracks_cannot_hold_the_server() -> None:
    """A hand-written schema's `pattern` (a remote or OpenAPI tool's) ran on Python's `re` over the
    client's value: `^([a-z]+)+$` given 25 letters and a `!` held the event loop 3 s, doubling with
    each letter. The search is bounded: the value is refused at once, and the server serves on."""
    schema = {"type": "object", "properties": {"word": {"type": "string", "pattern": "^([a-z]+)+$"}}}
    server = Server("s")
    server.add_tool(fake_tool("spell", schema))
    async with connect(server) as client:
        started = time.perf_counter()
        refused = await client.call_tool("spell", {"word": "a" * 28 + "!"})
        took = time.perf_counter() - started
        fine = await client.call_tool("spell", {"word": "abc"})
    assert refused.is_error and "word: must satisfy pattern '^([a-z]+)+$'" in refused.content[0].text
    assert took < 1.0
    assert fine.structured_content == {"word": "abc"}
