"""Tool.from_function: names, descriptions, schemas, overrides, injection, build-time errors, execution."""

from __future__ import annotations

import datetime as dt
import enum
import functools
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import anyio.lowlevel
import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from toolweave import Context, Tool, ToolAnnotations, get_context
from toolweave.core.validation import ArgumentErrors


async def call(tool: Tool, **arguments: Any) -> Any:
    """Validate like the server does, run, and return the structured or text result."""
    result = await tool.run(tool.validator.validate(arguments), Context())
    return result.structured_content if result.structured_content is not None else result.text


def test_name_and_description_come_from_the_function_and_docstring() -> None:
    def search_docs(query: str) -> str:
        """Search the documentation.

        Args:
            query: what to look for
        """
        return query

    tool = Tool.from_function(search_docs)
    assert tool.name == "search_docs"
    assert tool.description == "Search the documentation."
    assert tool.input_schema["properties"]["query"]["description"] == "what to look for"


def test_parameter_descriptions_from_field_annotated_default_and_string_shorthand() -> None:
    def f(
        a: Annotated[int, Field(description="from Annotated")],
        b: int = Field(3, description="from default"),
        c: Annotated[str, "from shorthand"] = "x",
        d: int = 0,
    ) -> None:
        """Doc.

        Args:
            a: loses to Annotated
            d: from the docstring
        """

    props = Tool.from_function(f).input_schema["properties"]
    assert props["a"]["description"] == "from Annotated"
    assert props["b"]["description"] == "from default"
    assert props["c"]["description"] == "from shorthand"
    assert props["d"]["description"] == "from the docstring"


def test_required_means_no_default() -> None:
    def f(a: int, b: int = 1, c: int | None = None) -> None: ...

    assert Tool.from_function(f).input_schema["required"] == ["a"]


def test_constraints_are_in_the_schema_and_enforced() -> None:
    def f(
        n: Annotated[int, Field(ge=1, le=10)],
        code: Annotated[str, Field(min_length=2, max_length=3, pattern="^[A-Z]+$")],
    ) -> None: ...

    tool = Tool.from_function(f)
    props = tool.input_schema["properties"]
    assert (props["n"]["minimum"], props["n"]["maximum"]) == (1, 10)
    assert (props["code"]["minLength"], props["code"]["maxLength"], props["code"]["pattern"]) == (2, 3, "^[A-Z]+$")
    with pytest.raises(ArgumentErrors) as raised:
        tool.validator.validate({"n": 11, "code": "abcd"})
    assert {p.path for p in raised.value.problems} == {"n", "code"}


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int


@dataclass
class Size:
    width: int
    height: int


class Movie(TypedDict):
    title: str
    year: int


PARAMETER_TYPES = [
    (int, 3, 3),
    (float, 1.5, 1.5),
    (str, "hi", "hi"),
    (bool, True, True),
    (bytes, "abc", b"abc"),
    (dt.datetime, "2026-01-02T03:04:05", dt.datetime(2026, 1, 2, 3, 4, 5)),
    (dt.date, "2026-01-02", dt.date(2026, 1, 2)),
    (dt.time, "03:04:05", dt.time(3, 4, 5)),
    (dt.timedelta, "PT1M", dt.timedelta(minutes=1)),
    (list[int], [1, 2], [1, 2]),
    (dict[str, int], {"a": 1}, {"a": 1}),
    (set[int], [1, 2], {1, 2}),
    (tuple[int, str], [1, "a"], (1, "a")),
    (int | None, None, None),
    (int | str, "x", "x"),
    (Literal["a", "b"], "b", "b"),
    (Color, "red", Color.RED),
    (Path, "/tmp/x", Path("/tmp/x")),
    (uuid.UUID, "12345678-1234-5678-1234-567812345678", uuid.UUID("12345678-1234-5678-1234-567812345678")),
    (Point, {"x": 1, "y": 2}, Point(x=1, y=2)),
    (Size, {"width": 1, "height": 2}, Size(1, 2)),
    (Movie, {"title": "Up", "year": 2009}, {"title": "Up", "year": 2009}),
]


@pytest.mark.parametrize(("annotation", "wire", "python"), PARAMETER_TYPES, ids=lambda v: repr(v)[:30])
async def test_parameter_types_validate_and_convert(annotation: Any, wire: Any, python: Any) -> None:
    seen = []

    def f(value):  # type: ignore[no-untyped-def]
        seen.append(value)

    f.__annotations__ = {"value": annotation}
    tool = Tool.from_function(f)
    assert tool.input_schema["type"] == "object" and "value" in tool.input_schema["properties"]
    await tool.run(tool.validator.validate({"value": wire}), Context())
    assert seen == [python]


def test_unannotated_parameters_accept_anything() -> None:
    def f(value, other=1):  # type: ignore[no-untyped-def]
        return value

    tool = Tool.from_function(f)
    assert tool.validator.validate({"value": {"any": ["thing"]}})["value"] == {"any": ["thing"]}


def test_overrides_replace_what_the_function_says() -> None:
    def f(a: int) -> int:
        """Original."""
        return a

    tool = Tool.from_function(
        f,
        name="renamed",
        title="A Title",
        description="New description",
        tags={"math"},
        meta={"owner": "team"},
        annotations={"readOnlyHint": True, "idempotentHint": True},
        enabled=False,
        output_schema=None,
    )
    assert (tool.name, tool.title, tool.description) == ("renamed", "A Title", "New description")
    assert tool.tags == frozenset({"math"}) and tool.meta == {"owner": "team"}
    assert tool.annotations == ToolAnnotations(read_only_hint=True, idempotent_hint=True)
    assert tool.enabled is False and tool.output_schema is None


def test_explicit_output_schema_is_used() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}

    def f() -> dict[str, int]:
        return {"n": 1}

    assert Tool.from_function(f, output_schema=schema).output_schema == schema


async def test_excluded_arguments_leave_the_schema_and_use_their_default() -> None:
    def f(a: int, debug: bool = False) -> str:
        return f"{a} {debug}"

    tool = Tool.from_function(f, exclude_args=["debug"])
    assert "debug" not in tool.input_schema["properties"]
    assert await call(tool, a=1) == "1 False"


def test_excluding_a_required_argument_is_a_type_error() -> None:
    def f(a: int) -> None: ...

    with pytest.raises(TypeError, match="cannot exclude 'a': it has no default"):
        Tool.from_function(f, exclude_args=["a"])


def test_excluding_a_missing_argument_is_a_type_error() -> None:
    def f(a: int = 1) -> None: ...

    with pytest.raises(TypeError, match="'nope', which is not a parameter"):
        Tool.from_function(f, exclude_args=["nope"])


@pytest.mark.parametrize("annotation", [Context, Context | None, Annotated[Context, "the request"]])
async def test_a_context_parameter_is_injected_and_not_in_the_schema(annotation: Any) -> None:
    def f(a: int, ctx=None):  # type: ignore[no-untyped-def]
        return type(ctx).__name__

    f.__annotations__ = {"a": int, "ctx": annotation}
    tool = Tool.from_function(f)
    assert list(tool.input_schema["properties"]) == ["a"]
    assert await call(tool, a=1) == "Context"


def test_a_second_context_parameter_is_refused_at_build_time() -> None:
    """It was taken, and every call failed: the Context went into one of them only."""

    def f(a: int, ctx: Context, again: Context) -> str:
        return ""

    says = r"^tool 'f', parameter 'again': a second Context parameter \(the first is 'ctx'\)"
    with pytest.raises(TypeError, match=says):
        Tool.from_function(f)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(*args): pass", r"\*args is not supported"),
        ("def f(**kwargs): pass", r"\*\*kwargs is not supported"),
        ("def f(a, /): pass", "positional-only parameters are not supported"),
    ],
)
def test_unsupported_signatures_are_rejected_at_build_time(source: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(TypeError, match=message):
        Tool.from_function(namespace["f"])


def test_a_lambda_needs_a_name() -> None:
    with pytest.raises(TypeError, match="pass name="):
        Tool.from_function(lambda x: x)
    assert Tool.from_function(lambda x: x, name="identity").name == "identity"


@pytest.mark.parametrize("name", ["json", "validate", "schema", "copy", "dict", "model_dump", "_private"])
async def test_parameters_named_like_basemodel_attributes_keep_their_names(name: str) -> None:
    namespace: dict[str, Any] = {}
    exec(f"def f({name}: str) -> str:\n    return {name}", namespace)
    tool = Tool.from_function(namespace["f"])
    assert list(tool.input_schema["properties"]) == [name]
    assert tool.input_schema["required"] == [name]
    assert await call(tool, **{name: "kept"}) == "kept"


async def test_async_functions_are_awaited_on_the_event_loop() -> None:
    loop_thread = threading.get_ident()

    async def f() -> bool:
        await anyio.lowlevel.checkpoint()
        return threading.get_ident() == loop_thread

    assert await call(Tool.from_function(f)) == {"result": True}


async def test_sync_functions_run_in_a_worker_thread() -> None:
    loop_thread = threading.get_ident()

    def f() -> bool:
        return threading.get_ident() != loop_thread

    assert await call(Tool.from_function(f)) == {"result": True}


async def test_run_in_thread_false_runs_sync_functions_inline() -> None:
    loop_thread = threading.get_ident()

    def f() -> bool:
        return threading.get_ident() == loop_thread

    assert await call(Tool.from_function(f, run_in_thread=False)) == {"result": True}


def _async_wrapper(fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        await anyio.lowlevel.checkpoint()
        return fn(*args, **kwargs)

    return wrapper


def _sync_wrapper(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


async def _async_add(a: int, b: int) -> int:
    return a + b


def _sync_add(a: int, b: int) -> int:
    return a + b


@pytest.mark.parametrize(
    "fn", [_async_wrapper(_sync_add), _sync_wrapper(_async_add)], ids=["async-wraps-sync", "sync-wraps-async"]
)
async def test_a_decorated_function_is_called_as_its_outermost_layer_needs(fn: Any) -> None:
    """An async decorator over a sync function is awaited (it ran in a thread and its coroutine was
    never awaited); a sync one over an async function has its coroutine awaited."""
    assert await call(Tool.from_function(fn), a=1, b=2) == {"result": 3}


@pytest.mark.parametrize("run_in_thread", [True, False])
async def test_a_sync_callable_returning_a_coroutine_has_it_awaited(run_in_thread: bool) -> None:
    """`lambda a, b: _async_add(a, b)`: the coroutine was refused as a result, never run."""
    tool = Tool.from_function(lambda a, b: _async_add(a, b), name="add", run_in_thread=run_in_thread)
    assert await call(tool, a=1, b=2) == "3"


async def test_get_context_works_inside_sync_and_async_tools() -> None:
    from toolweave import Server

    server = Server("ctx")

    @server.tool
    def sync_tool() -> str:
        return str(get_context().request_id)

    @server.tool
    async def async_tool() -> str:
        return str(get_context().request_id)

    ctx = Context(request_id="req-7")
    assert (await server.call_tool("sync_tool", ctx=ctx)).text == "req-7"
    assert (await server.call_tool("async_tool", ctx=ctx)).text == "req-7"


class Shop:
    def buy(self, item: str) -> str:
        return f"bought {item}"


def test_a_method_taken_from_its_class_is_refused_at_build() -> None:
    """`self` was listed as a required argument no client could fill: every call failed."""
    says = r"^tool 'buy': Shop.buy is a method taken from its class \(its first parameter, self,"
    with pytest.raises(TypeError, match=says):
        Tool.from_function(Shop.buy)


def test_a_classmethod_decorated_in_its_class_body_says_how_to_register_it() -> None:
    """It was "expected a function or a Tool, got classmethod"."""
    from toolweave import Server

    server = Server("s")
    says = r"^tool 'restock' is a classmethod in its class body, .*add_tool\(TheClass.restock\)$"
    with pytest.raises(TypeError, match=says):

        class Store:
            @server.tool
            @classmethod
            def restock(cls, item: str) -> str:
                return item


async def test_an_instances_method_is_a_tool_without_self() -> None:
    tool = Tool.from_function(Shop().buy)
    assert list(tool.input_schema["properties"]) == ["item"]
    assert await call(tool, item="tea") == "bought tea"


def test_callable_objects_become_tools() -> None:
    class Greeter:
        def __call__(self, name: str) -> str:
            """Greet someone."""
            return f"hi {name}"

    tool = Tool.from_function(Greeter(), name="greet")
    assert tool.input_schema["required"] == ["name"]
    assert tool.description == "Greet someone."


@pytest.mark.parametrize("is_async", [False, True])
def test_a_callable_object_without_docstrings_has_no_description(is_async: bool) -> None:
    """Not the text Python gives `type.__call__` ("Call self as a function.")."""

    class Sync:
        def __call__(self, name: str) -> str:
            return name

    class Async:
        async def __call__(self, name: str) -> str:
            return name

    assert Tool.from_function(Async() if is_async else Sync(), name="greet").description is None


def test_a_callable_object_whose_call_has_no_docstring_is_described_by_its_class() -> None:
    class Greeter:
        """Greet someone."""

        def __call__(self, name: str) -> str:
            return f"hi {name}"

    assert Tool.from_function(Greeter(), name="greet").description == "Greet someone."


def test_a_class_is_refused_naming_it() -> None:
    class Order:
        def __init__(self, number: int) -> None:
            self.number = number

    with pytest.raises(TypeError, match=r"tool 'order': .*Order is a class; .*an instance with __call__"):
        Tool.from_function(Order, name="order")


async def test_a_field_alias_is_the_argument_name_on_the_wire() -> None:
    def f(user_id: Annotated[str, Field(alias="userId")] = "nobody") -> str:
        return user_id

    tool = Tool.from_function(f)
    assert list(tool.input_schema["properties"]) == ["userId"]
    assert await call(tool, userId="alice") == "alice"
    with pytest.raises(ArgumentErrors, match="user_id"):
        tool.validator.validate({"user_id": "alice"})


def test_a_simple_signature_builds_its_pydantic_model_at_the_first_call_not_at_registration() -> None:
    def search(query: str, limit: int = 10, tags: list[str] | None = None) -> str:
        return query

    tool = Tool.from_function(search)
    assert not tool.validator.built  # type: ignore[attr-defined]
    assert tool.validator.validate({"query": "q", "limit": "3"}) == {"query": "q", "limit": 3, "tags": None}
    assert tool.validator.built  # type: ignore[attr-defined]


def test_a_lazily_built_tool_validates_exactly_like_an_eagerly_built_one() -> None:
    from toolweave.core.reading import build_model, parameters
    from toolweave.core.validation import ModelValidator

    def search(query: str, limit: int = 10, mode: Literal["a", "b"] = "a", json: dict[str, int] | None = None) -> str:
        return query

    lazy = Tool.from_function(search).validator
    model, names = build_model("search", parameters(search, "search")[0])
    eager = ModelValidator(model, names=names)
    for arguments in ({"query": "q", "json": {"a": "1"}}, {"query": 1, "limit": "x", "mode": "c", "zz": 0}, {}):
        outcomes = []
        for validator in (lazy, eager):
            try:
                outcomes.append(validator.validate(arguments))
            except ArgumentErrors as error:
                outcomes.append([str(problem) for problem in error.problems])
        assert outcomes[0] == outcomes[1]


class Opaque:
    """A type pydantic cannot describe (at module level: this module's annotations are strings)."""


def test_types_the_fast_path_does_not_know_still_fail_at_registration() -> None:
    def f(thing: Opaque) -> str:
        return ""

    with pytest.raises(TypeError, match="tool 'f': cannot"):
        Tool.from_function(f)


async def test_excluded_arguments_are_dropped_like_unknown_ones_when_extra_arguments_are_ignored() -> None:
    from toolweave import Server

    seen: list[bool] = []

    def search(q: str, debug: bool = False) -> str:
        seen.append(debug)
        return q

    server = Server("s", extra_args="ignore")
    server.add_tool(search, exclude_args=["debug"])
    spoofed = await server.call_tool("search", {"q": "x", "debug": True})
    dropped = await server.call_tool("search", {"q": "x", "zz": 1})
    assert not spoofed.is_error and spoofed == dropped  # no oracle: answered like any unknown name
    assert seen == [False, False]  # the client's value never reached the tool
