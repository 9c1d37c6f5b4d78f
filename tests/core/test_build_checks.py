"""What building a tool or prompt from a function refuses, or reads through, before any call:
async generators, partials, explicit output schemas, a string where names are expected, and
defaults that do not fit their type."""

from __future__ import annotations

import datetime as dt
import enum
import functools
import re
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from toolweave import Server
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource
from toolweave.core.tool import Tool
from toolweave.testing import connect

# -- generators: run to their end, what they yielded is the result ---------------------------------


async def count(n: int) -> AsyncIterator[int]:
    for i in range(n):
        yield i


def count_sync(n: int):  # type: ignore[no-untyped-def]
    yield from range(n)


@pytest.mark.parametrize("fn", [count, count_sync], ids=["async", "sync"])
async def test_a_generator_tool_returns_the_list_of_what_it_yielded(fn: Any) -> None:
    server = Server("s", mask_error_details=False)
    server.add_tool(fn, name="count")
    result = await server.call_tool("count", {"n": 3})
    assert (result.is_error, result.text) == (False, "[0,1,2]")


async def test_an_async_generator_prompt_sends_each_yielded_item_as_a_message() -> None:
    async def chat(topic: str) -> AsyncIterator[str]:
        yield f"Tell me about {topic}"
        yield "Briefly."

    server = Server("s")
    server.add_prompt(chat)
    result = await server.get_prompt("chat", {"topic": "owls"})
    assert [message.content.text for message in result.messages] == ["Tell me about owls", "Briefly."]  # type: ignore[union-attr]


# -- functools.partial: described by the function it wraps ----------------------------------------


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_a_partial_is_named_described_and_typed_by_its_function() -> None:
    tool = Tool.from_function(functools.partial(add, b=10))
    assert (tool.name, tool.description) == ("add", "Add two numbers.")
    assert tool.output_schema is not None and tool.output_schema["properties"]["result"] == {"type": "integer"}
    assert tool.input_schema["required"] == ["a"]  # (a keyword bound by the partial is its default)


async def test_a_partial_tool_returns_its_functions_result() -> None:
    server = Server("s")
    server.add_tool(functools.partial(add, b=10))
    assert (await server.call_tool("add", {"a": 1})).structured_content == {"result": 11}


# -- explicit output schemas ---------------------------------------------------------------------


def echo(x: int) -> int:
    return x


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"type": "string"}, "output_schema must describe a JSON object (type: object), not type 'string'"),
        ({"type": "nope"}, "output_schema must describe a JSON object (type: object), not type 'nope'"),
        ({"properties": {}}, "output_schema must describe a JSON object (type: object), not no type"),
        ({"type": "object", "properties": {"n": {"type": "nope"}}}, "cannot be applied: properties.n.type is 'nope'"),
        ({"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}, "cannot be applied: properties.n.$ref is"),
        ({"type": "object", "properties": {"n": {"pattern": "(["}}}, "cannot be applied: properties.n.pattern is"),
        (
            {"type": "object", "properties": {"n": {"$dynamicRef": "#node"}}},
            "cannot be applied: properties.n.$dynamicRef is '#node'",
        ),
        ("object", "must be a JSON Schema (a dict) or None, not str"),
    ],
)
def test_an_output_schema_that_is_not_an_object_schema_is_refused_at_build(schema: Any, says: str) -> None:
    with pytest.raises(TypeError, match=r"^tool 'echo': ") as error:
        Server("s").add_tool(echo, output_schema=schema)
    assert says in str(error.value)


def test_an_object_output_schema_is_kept() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert Tool.from_function(echo, output_schema=schema).output_schema == schema


# -- a single string where names are expected ----------------------------------------------------


def flagged(x: int, debug: bool = False) -> int:
    return x


@pytest.mark.parametrize("option", ["tags", "exclude_args"])
def test_a_string_for_a_list_of_names_is_refused_not_split_into_characters(option: str) -> None:
    says = rf"tool 'flagged': {option} must be a list or set of names, not the string 'debug'"
    with pytest.raises(TypeError, match=says):
        Tool.from_function(flagged, **{option: "debug"})


def test_a_string_for_prompt_tags_is_refused() -> None:
    with pytest.raises(TypeError, match=r"prompt 'flagged': tags must be a list or set of names"):
        Prompt.from_function(flagged, tags="billing")


def test_a_tool_made_directly_refuses_string_tags() -> None:
    with pytest.raises(TypeError, match=r"tool 'echo': tags must be a list or set of names"):
        Tool(name="echo", input_schema={"type": "object"}, run=None, tags="billing")  # type: ignore[arg-type]


@pytest.mark.parametrize("option", ["title", "description"])
@pytest.mark.parametrize("make", [Tool.from_function, Prompt.from_function, Resource.from_function])
def test_a_title_or_description_that_is_not_a_string_is_refused_at_build(make: Any, option: str) -> None:
    """It was taken, and then every tools/list (prompts/list, resources/list) failed on it."""

    def readme() -> str:
        return "text"

    uri = {"uri": "data://readme"} if make == Resource.from_function else {}
    with pytest.raises(TypeError, match=rf"^\w+ 'readme': {option} must be a string, not 5$"):
        make(readme, **uri, **{option: 5})


def test_a_tool_made_directly_or_replaced_refuses_a_title_that_is_not_a_string() -> None:
    with pytest.raises(TypeError, match=r"^tool 'echo': title must be a string, not 5$"):
        Tool(name="echo", input_schema={"type": "object"}, run=None, title=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^tool 'flagged': title must be a string, not 5$"):
        Tool.from_function(flagged).replace(title=5)


def test_a_name_that_is_not_a_string_is_refused_saying_so() -> None:
    """It was "expected string or bytes-like object, got 'int'" from the name's regex."""
    with pytest.raises(TypeError, match=r"^a tool name must be a string, not 5$"):
        Server("s").add_tool(flagged, name=5)


def test_tags_and_exclude_args_as_lists_still_work() -> None:
    tool = Tool.from_function(flagged, tags=["billing"], exclude_args=["debug"])
    assert (tool.tags, list(tool.input_schema["properties"])) == (frozenset({"billing"}), ["x"])


# -- defaults that do not fit their type ---------------------------------------------------------


def wrong_int(n: int = "three") -> int:  # type: ignore[assignment]
    return n


def wrong_choice(order: Literal["asc", "desc"] = "up") -> str:  # type: ignore[assignment]
    return order


def wrong_documented(n: Annotated[int, "how many"] = "x") -> int:  # type: ignore[assignment]
    return n


def none_for_str(*, name: str = None) -> str:  # type: ignore[assignment]  # noqa: RUF013 - the implicit Optional
    return name or "nobody"


def wrong_complex(z: complex = 1j, n: int = "x") -> int:  # type: ignore[assignment]
    return n


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def wrong_enum(color: Color = "blue") -> str:  # type: ignore[assignment]
    return color.value


def wrong_when(when: dt.datetime = "soon") -> str:  # type: ignore[assignment]
    return when.isoformat()


def wrong_bound(n: Annotated[int, Field(ge=1)] = 0) -> int:
    return n


def wrong_in_list(colors: list[Color] = ["red", "blue"]) -> int:  # type: ignore[list-item]  # noqa: B006
    return len(colors)


@pytest.mark.parametrize(
    ("fn", "param", "default"),
    [
        (wrong_int, "n", "'three'"),  # read later (a plain signature)
        (wrong_enum, "color", "'blue'"),  # the types below are pydantic's to judge
        (wrong_when, "when", "'soon'"),
        (wrong_bound, "n", "0"),
        (wrong_in_list, "colors", r"\['red', 'blue'\]"),
        (wrong_choice, "order", "'up'"),
        (wrong_documented, "n", "'x'"),
        (wrong_complex, "n", "'x'"),  # read at once (complex needs pydantic)
        (functools.partial(wrong_int), "n", "'three'"),  # read at once (not a plain function)
    ],
)
def test_a_default_that_does_not_fit_its_type_is_refused_at_build(fn: Any, param: str, default: str) -> None:
    with pytest.raises(TypeError, match=rf"parameter '{param}': the default given for it \({default}\) does not fit"):
        Server("s").add_tool(fn, name="t")


async def test_a_none_default_on_a_plain_type_is_the_implicit_optional_it_always_was() -> None:
    """`name: str = None` is common (PEP 484 once read it as `str | None`; pydantic accepts it):
    it registers, and a call without the argument gets None."""
    server = Server("s")
    server.add_tool(none_for_str)
    assert (await server.call_tool("none_for_str", {})).text == "nobody"


def test_a_prompt_default_that_does_not_fit_its_type_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^prompt 'wrong_int', parameter 'n': the default given for it"):
        Prompt.from_function(wrong_int)


def fitting(
    a: float = 1, b: str | None = None, c: Literal["x", "y"] = "y", d: bool = True, e: list[str] | None = None
) -> None: ...


def test_defaults_that_fit_their_types_are_kept() -> None:
    properties = Tool.from_function(fitting).input_schema["properties"]
    assert [properties[name].get("default") for name in "abcde"] == [1, None, "y", True, None]


def test_a_default_pydantic_refuses_is_named_with_pydantics_reason() -> None:
    with pytest.raises(TypeError) as error:
        Server("s").add_tool(wrong_enum)
    assert str(error.value) == (
        "tool 'wrong_enum', parameter 'color': the default given for it ('blue') does not fit its type Color"
        " (Input should be 'red' or 'green')"
    )


_UNSET: Any = object()


def fitting_for_pydantic(
    a: Color = Color.GREEN,
    b: dt.date = "2024-05-01",  # type: ignore[assignment]
    c: Annotated[int, Field(ge=1)] = 1,
    d: dt.datetime = _UNSET,
    e: Color = None,  # type: ignore[assignment]
    f: list[Color] = ["red"],  # type: ignore[list-item]  # noqa: B006
) -> str:
    return repr((a, b, c, d is _UNSET, e, f))


async def test_defaults_pydantic_accepts_or_that_are_not_json_still_register_and_apply() -> None:
    server = Server("s")
    server.add_tool(fitting_for_pydantic)
    async with connect(server) as client:
        listed = (await client.list_tools()).tools[0].input_schema["properties"]
        result = await client.call_tool("fitting_for_pydantic", {})
    assert [listed[name].get("default") for name in "abcf"] == ["green", "2024-05-01", 1, ["red"]]
    assert result.content[0].text == "(<Color.GREEN: 'green'>, '2024-05-01', 1, True, None, ['red'])"


# -- an annotation naming something undefined (this module has `from __future__ import annotations`)


def _takes_undefined(item: Undefined) -> str:  # type: ignore[name-defined]  # noqa: F821 - the point
    return "never called"


@pytest.mark.parametrize("make, kind", [(Tool.from_function, "tool"), (Prompt.from_function, "prompt")])
def test_an_annotation_naming_something_undefined_is_refused_naming_the_parameter(make: Any, kind: str) -> None:
    """It was pydantic's advice to call `_takes_undefined_arguments.model_rebuild()` (a model the
    user never sees), with no parameter named, and 'tool' for a prompt."""
    with pytest.raises(TypeError, match=rf"^{kind} '_takes_undefined', parameter 'item': its annotation 'Undefined'"):
        make(_takes_undefined)


# -- a misspelt option


def readme() -> str:
    return "text"


@pytest.mark.parametrize(
    ("register", "says"),
    [
        (lambda s: s.tool(nme="x")(readme), "tool 'readme': unknown option 'nme'; did you mean 'name'?"),
        (lambda s: s.add_tool(readme, tagz=["a"]), "tool 'readme': unknown option 'tagz'; did you mean 'tags'?"),
        (lambda s: s.prompt(titel="T")(readme), "prompt 'readme': unknown option 'titel'; did you mean 'title'?"),
        (
            lambda s: s.resource("data://readme", mimetype="text/plain")(readme),
            "resource 'readme': unknown option 'mimetype'; did you mean 'mime_type'?",
        ),
    ],
)
def test_a_misspelt_option_is_refused_naming_the_function_and_the_nearest_option(register: Any, says: str) -> None:
    """It was "tool_from_function() got an unexpected keyword argument 'nme'": a function the user never called."""
    with pytest.raises(TypeError, match=f"^{re.escape(says)}$"):
        register(Server("s"))
