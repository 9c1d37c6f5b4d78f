"""TransformArgs / Arg: rename, redescribe, re-default, retype, hide, reorder (function and schema tools)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from toolweave import Server, Tool, TransformError
from toolweave.transforms import Arg, TransformArgs

from .conftest import Calls


async def call(tool: Tool, arguments: dict[str, Any]) -> Any:
    server = Server("t")
    server.add_tool(tool)
    return await server.call_tool(tool.name, arguments)


def props(tool: Tool) -> dict[str, Any]:
    return dict(tool.input_schema["properties"])


async def test_renamed_argument_reaches_the_parent_under_its_old_name(search_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"q": Arg(name="query")}).apply(search_tool)
    result = await call(tool, {"query": "cats"})
    assert not result.is_error and calls[-1]["q"] == "cats"
    assert "query" in props(tool) and "q" not in props(tool)


def test_a_plain_string_renames(search_tool: Tool) -> None:
    assert next(iter(props(TransformArgs({"q": "query"}).apply(search_tool)))) == "query"


def test_description_is_replaced_or_removed(search_tool: Tool) -> None:
    tool = TransformArgs({"q": Arg(description="terms"), "limit": Arg(description=None)}).apply(search_tool)
    assert props(tool)["q"]["description"] == "terms"
    assert "description" not in props(tool)["limit"]


def test_examples_appear_in_the_schema(search_tool: Tool) -> None:
    tool = TransformArgs({"q": Arg(examples=["cats", "dogs"])}).apply(search_tool)
    assert props(tool)["q"]["examples"] == ["cats", "dogs"]


async def test_new_default_makes_a_required_argument_optional(search_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"q": Arg(default="everything")}).apply(search_tool)
    assert "required" not in tool.input_schema
    await call(tool, {})
    assert calls[-1]["q"] == "everything"


async def test_required_true_drops_the_default(search_tool: Tool) -> None:
    tool = TransformArgs({"limit": Arg(required=True)}).apply(search_tool)
    assert "limit" in tool.input_schema["required"]
    result = await call(tool, {"q": "x"})
    assert result.is_error and "limit" in result.text


async def test_retype_validates_as_the_new_type_then_converts_to_the_parent_type(
    search_tool: Tool, calls: Calls
) -> None:
    tool = TransformArgs({"limit": Arg(type=str)}).apply(search_tool)
    assert props(tool)["limit"]["type"] == "string"
    await call(tool, {"q": "x", "limit": "7"})
    assert calls[-1]["limit"] == 7 and isinstance(calls[-1]["limit"], int)


async def test_retyped_value_the_parent_cannot_take_is_an_invalid_argument(search_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"limit": Arg(name="max", type=str)}).apply(search_tool)
    result = await call(tool, {"q": "x", "max": "seven"})
    assert result.is_error and "Invalid arguments" in result.text and "max" in result.text
    assert "seven" not in result.text and calls == []


async def test_retype_int_to_str_parent_converts_numbers(calls: Calls) -> None:
    async def tag(label: str) -> str:
        calls.append({"label": label})
        return label

    tool = TransformArgs({"label": Arg(type=int)}).apply(Tool.from_function(tag))
    await call(tool, {"label": 42})
    assert calls[-1]["label"] == "42"


async def test_hidden_argument_uses_the_given_default(search_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"debug": Arg(hide=True, default=True)}).apply(search_tool)
    assert "debug" not in props(tool)
    await call(tool, {"q": "x"})
    assert calls[-1]["debug"] is True


async def test_hidden_argument_factory_is_called_per_call(search_tool: Tool, calls: Calls) -> None:
    counter = iter(range(100))
    tool = TransformArgs({"limit": Arg(hide=True, default_factory=lambda: next(counter))}).apply(search_tool)
    await call(tool, {"q": "x"})
    await call(tool, {"q": "x"})
    assert [c["limit"] for c in calls] == [0, 1]


async def test_hidden_argument_without_a_new_default_uses_the_parent_default(search_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"limit": Arg(hide=True)}).apply(search_tool)
    await call(tool, {"q": "x"})
    assert calls[-1]["limit"] == 10


def test_order_puts_the_named_arguments_first(search_tool: Tool) -> None:
    tool = TransformArgs({"q": "query"}, order=["debug", "query"]).apply(search_tool)
    assert list(props(tool)) == ["debug", "query", "limit", "api_key"]


async def test_two_arguments_can_swap_names(search_tool: Tool, calls: Calls) -> None:
    async def pair(a: str, b: str) -> str:
        calls.append({"a": a, "b": b})
        return a

    tool = TransformArgs({"a": "b", "b": "a"}).apply(Tool.from_function(pair))
    await call(tool, {"a": "was-b", "b": "was-a"})
    assert calls[-1] == {"a": "was-a", "b": "was-b"}


# -- bad definitions fail at composition time, naming the tool and the argument ---------------


def test_arg_for_a_missing_argument_names_tool_and_argument(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'search', argument 'nope'.*does not expose"):
        TransformArgs({"nope": Arg(name="x")}).apply(search_tool)


def test_renaming_onto_an_existing_argument_is_refused(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'search', argument 'q'.*'limit'"):
        TransformArgs({"q": Arg(name="limit")}).apply(search_tool)


def test_hiding_a_required_argument_without_default_is_refused(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'search', argument 'q'.*required and has no default"):
        TransformArgs({"q": Arg(hide=True)}).apply(search_tool)


def test_hidden_constant_of_the_wrong_type_is_refused_without_showing_it(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"argument 'limit'") as caught:
        TransformArgs({"limit": Arg(hide=True, default="secret-limit")}).apply(search_tool)
    assert "secret-limit" not in str(caught.value)


def test_a_new_default_of_the_wrong_type_is_refused(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"argument 'limit': the default given for it does not fit its type"):
        TransformArgs({"limit": Arg(default="many")}).apply(search_tool)


async def test_a_new_default_is_converted_to_the_arguments_type(search_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"limit": Arg(default="7")}).apply(search_tool)
    assert props(tool)["limit"]["default"] == 7
    await call(tool, {"q": "x"})
    assert calls[-1]["limit"] == 7


async def test_a_new_default_is_checked_against_the_new_type_of_a_retyped_argument(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match="the default given for it does not fit its type"):
        TransformArgs({"limit": Arg(type=date, default="soon")}).apply(search_tool)
    tool = TransformArgs({"limit": Arg(type=str, default="3")}).apply(search_tool)
    assert props(tool)["limit"]["default"] == "3"


def test_order_naming_an_unknown_argument_is_refused(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match="'zzz'"):
        TransformArgs({"q": "query"}, order=["zzz"]).apply(search_tool)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"default": 1, "default_factory": lambda: 1, "hide": True}, "not both"),
        ({"default_factory": lambda: 1}, "hidden arguments"),
        ({"required": False}, "only True"),
        ({"required": True, "default": 1}, "neither"),
        ({"hide": True, "name": "x"}, "cannot also be renamed"),
    ],
)
def test_inconsistent_arg_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Arg(**options)


def test_hidden_default_is_not_shown_in_repr() -> None:
    assert "hunter2" not in repr(Arg(hide=True, default="hunter2"))


# -- schema-only tools -------------------------------------------------------------------------


async def test_schema_tool_rename_updates_properties_and_required(schema_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"q": "query", "credential": "cred"}).apply(schema_tool)
    assert tool.input_schema["required"] == ["query", "cred"]
    await call(tool, {"query": "x", "cred": {"token": "t"}})
    assert calls[-1] == {"q": "x", "credential": {"token": "t"}}


async def test_schema_tool_new_default_is_sent_when_the_client_omits_it(schema_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"page": Arg(default=3)}).apply(schema_tool)
    assert props(tool)["page"]["default"] == 3
    await call(tool, {"q": "x", "credential": {"token": "t"}})
    assert calls[-1]["page"] == 3


async def test_schema_tool_retype_converts_to_the_parent_json_type(schema_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"q": Arg(type=int)}).apply(schema_tool)
    assert props(tool)["q"]["type"] == "integer" and props(tool)["q"]["description"] == "search terms"
    await call(tool, {"q": 12, "credential": {"token": "t"}})
    assert calls[-1]["q"] == "12"


async def test_schema_tool_retype_to_a_model_type_hoists_its_defs(schema_tool: Tool, calls: Calls) -> None:
    from pydantic import BaseModel

    class Window(BaseModel):
        start: date
        end: date

    tool = TransformArgs({"options": Arg(type=list[Window])}).apply(schema_tool)
    assert props(tool)["options"]["items"] == {"$ref": "#/$defs/Window"}
    assert "Window" in tool.input_schema["$defs"] and "Filter" in tool.input_schema["$defs"]
    window = {"start": "2024-01-01", "end": "2024-02-01"}
    await call(tool, {"q": "x", "credential": {"token": "t"}, "options": [window]})
    assert calls[-1]["options"] == [window]


def test_schema_tool_arg_for_a_missing_argument_is_refused(schema_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'lookup', argument 'nope'"):
        TransformArgs({"nope": "x"}).apply(schema_tool)


def test_schema_tool_hiding_a_required_argument_without_default_is_refused(schema_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'lookup', argument 'credential'.*required"):
        TransformArgs({"credential": Arg(hide=True)}).apply(schema_tool)


async def test_schema_tool_retype_converts_to_an_anyof_parent_type(schema_tool: Tool, calls: Calls) -> None:
    tool = TransformArgs({"page": Arg(type=str)}).apply(schema_tool)
    await call(tool, {"q": "x", "credential": {"token": "t"}, "page": "4"})
    assert calls[-1]["page"] == 4
    result = await call(tool, {"q": "x", "credential": {"token": "t"}, "page": "four"})
    assert result.is_error and "page" in result.text and "four" not in result.text
