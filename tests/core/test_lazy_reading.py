"""Function tools are read lazily: registration decides every error, listing reads the docstring
and writes the schema, the first call makes the invoker and the validator."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Literal

import pytest

from toolweave import Context, Server, Tool
from toolweave.core.function_tool import FunctionTool, readable_later
from toolweave.mcp.convert import wire_tool
from toolweave.testing import RecordingMiddleware, connect
from toolweave.transforms import Rename


def search(query: str, limit: int = 10, tags: list[str] | None = None, order: Literal["asc", "desc"] = "asc") -> str:
    """Search the index.

    Args:
        query: what to look for
        limit: how many results at most
    """
    return f"{query}:{limit}:{tags}:{order}"


def counts(words: list[str], ctx: Context) -> dict[str, int]:
    """Count words."""
    return {word: words.count(word) for word in words}


def flag(on: bool = False) -> bool:
    return on


def unread(tool: Tool) -> bool:
    return isinstance(tool, FunctionTool) and not tool.read


def plain_copy(fn: Any) -> Any:
    """`fn` behind a wrapper, which is read at once (the eager path)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


def test_registering_a_plain_function_reads_neither_its_docstring_nor_its_schema() -> None:
    def hello(name: str) -> str:
        """Old words."""
        return name

    tool = Tool.from_function(hello)
    hello.__doc__ = "New words."  # read at the first listing, so the listing sees this one
    assert unread(tool)
    assert tool.description == "New words." and not unread(tool)


async def test_a_listing_through_a_client_reads_only_the_tools_on_the_page_it_sends() -> None:
    server = Server("lazy", page_size=2)
    for index in range(5):
        server.add_tool(search, name=f"search_{index}")
    async with connect(server, cache=None) as client:
        first = await client.list_tools()
    tools = server.catalog.tools
    assert [t.name for t in first.tools] == ["search_0", "search_1"]
    assert [unread(tool) for tool in tools] == [False, False, True, True, True]
    assert first.tools[0].description == "Search the index."


async def test_compiling_the_catalog_and_disabling_a_tool_read_nothing() -> None:
    server = Server("lazy")
    server.add_tool(search)
    server.add_tool(flag)
    server.tools.set_enabled("flag", False)
    assert all(unread(tool) for tool in server.catalog.tools) and unread(server.local_tools["flag"])
    assert [tool.name for tool in server.catalog.tools] == ["search"]


async def test_the_first_call_reads_the_tool_whole_and_leaves_plain_slot_reads() -> None:
    server = Server("lazy")
    server.add_tool(counts)
    tool = server.catalog.tools[0]
    assert isinstance(tool, FunctionTool) and not tool.read and not tool.prepared
    assert (await server.call_tool("counts", {"words": ["a", "b", "a"]})).structured_content == {"a": 2, "b": 1}
    assert tool.read and tool.prepared and tool.description == "Count words."
    # (a class with `__getattr__` would keep CPython from specialising the call path's reads)
    assert not hasattr(type(tool), "__getattr__") and isinstance(tool, FunctionTool)


async def test_compiling_chains_of_middleware_makes_no_invoker_before_the_first_call() -> None:
    recorder = RecordingMiddleware()
    server = Server("lazy", middleware=[recorder])
    server.add_tool(flag)
    tool = server.catalog.tools[0]
    assert isinstance(tool, FunctionTool) and not tool.prepared and not tool.read
    assert (await server.call_tool("flag", {"on": True})).structured_content == {"result": True}
    assert tool.prepared and [call.tool.name for call in recorder.calls] == ["flag"]


@pytest.mark.parametrize("fn", [search, counts, flag])
async def test_a_lazily_read_tool_equals_the_one_read_at_once(fn: Any) -> None:
    lazy, eager = Tool.from_function(fn), Tool.from_function(plain_copy(fn))
    assert unread(lazy) and not isinstance(eager, FunctionTool)
    assert wire_tool(lazy) == wire_tool(eager)
    assert (lazy.output_checked, lazy.hidden, lazy.origin) == (eager.output_checked, eager.hidden, eager.origin)
    arguments = {"query": "q", "limit": "3"} if fn is search else {"words": ["x"]} if fn is counts else {}
    results = [await tool.run(tool.validator.validate(arguments), Context()) for tool in (lazy, eager)]
    assert results[0] == results[1]


RAW_SOURCES = [  # annotations as objects (no `from __future__ import annotations`): used as they are
    'def f(query: str, limit: int = 10, tags: list[str] | None = None) -> list[str]:\n'
    '    """Find.\n\n    Args:\n        query: what\n    """\n    return [query]',
    "def f(nothing: None = None, mode: Literal['a', 'b'] = 'a') -> str:\n    return mode",
    "def f(nothing: None = None) -> None:\n    return None",
    "def f(ctx: Context, counts: dict[str, int]) -> dict[str, int]:\n    return counts",
]


@pytest.mark.parametrize("source", RAW_SOURCES)
async def test_a_function_with_annotation_objects_reads_like_one_read_at_once(source: str) -> None:
    namespace: dict[str, Any] = {"Literal": Literal, "Context": Context}
    exec(source, namespace)
    fn = namespace["f"]
    lazy, eager = Tool.from_function(fn), Tool.from_function(plain_copy(fn))
    assert unread(lazy) and wire_tool(lazy) == wire_tool(eager)
    arguments = {"query": "q"} if "query" in source else {"counts": {"a": 1}} if "counts" in source else {}
    results = [await tool.run(tool.validator.validate(arguments), Context()) for tool in (lazy, eager)]
    assert results[0] == results[1]


def test_every_field_of_an_unread_tool_can_be_read() -> None:
    tool = Tool.from_function(search, tags={"find"}, task_support="optional")
    values = {item.name: getattr(tool, item.name) for item in dataclasses.fields(Tool)}
    assert values["tags"] == frozenset({"find"}) and values["task_support"] == "optional"
    assert values["input_schema"]["required"] == ["query"] and values["origin"].original_name == "search"
    assert callable(values["run"]) and values["validator"].allowed == {"query", "limit", "tags", "order"}
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        tool.nothing  # type: ignore[attr-defined]  # noqa: B018 - the read under test


def test_an_unread_tool_has_the_defaults_of_any_tool() -> None:
    tool = Tool.from_function(flag)
    read_or_known = {"name", "description", "validator", "origin", "fn", "output_schema", "output_checked"}
    defaults = {item.name: item.default for item in dataclasses.fields(Tool) if item.name not in read_or_known}
    assert {name: getattr(tool, name) for name in defaults if default_set(defaults[name])} == {
        name: value for name, value in defaults.items() if default_set(value)
    }


def default_set(value: Any) -> bool:
    return value is not dataclasses.MISSING


def test_replacing_a_registration_field_keeps_the_tool_unread_and_anything_else_reads_it() -> None:
    tool = Tool.from_function(search)
    disabled = tool.replace(enabled=False, tags=["x"])
    assert unread(disabled) and not disabled.enabled and disabled.tags == frozenset({"x"}) and unread(tool)
    described = tool.replace(description="Find things.")
    assert type(described) is Tool and described.description == "Find things."
    assert described.input_schema == wire_tool(tool)["inputSchema"]
    unchecked = Tool.from_function(search).replace(output_schema=None)  # the invoker depends on it
    assert type(unchecked) is Tool and unchecked.output_schema is None


def test_a_transform_makes_an_ordinary_tool_from_an_unread_one() -> None:
    base = Tool.from_function(search)
    renamed = Rename("find").apply(base)
    assert type(renamed) is Tool and renamed.name == "find" and renamed.description == "Search the index."
    assert renamed.parent is base and not unread(base)  # the transform read it


def test_a_bad_task_support_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="tool 'search': task_support must be one of"):
        Tool.from_function(search, task_support="sometimes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(x: 'Missing') -> str: ...", "tool 'f', parameter 'x': its annotation 'Missing' cannot be resolved"),
        ("class Opaque: ...\ndef f(x: Opaque) -> str: ...", "tool 'f': cannot build an argument schema"),
        ("class Opaque: ...\ndef f(x: list[Opaque] = []) -> str: ...", "tool 'f': cannot build an argument schema"),
    ],
)
def test_functions_that_cannot_be_described_still_fail_at_registration(source: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    assert readable_later(namespace["f"]) is None
    with pytest.raises(TypeError, match=message):
        Tool.from_function(namespace["f"])


def test_a_function_changed_after_registration_fails_at_its_first_reading_naming_the_tool() -> None:
    class Opaque:
        pass

    def load(path: str) -> str:
        return path

    tool = Tool.from_function(load)
    load.__annotations__["path"] = Opaque
    with pytest.raises(TypeError, match="tool 'load': cannot build an argument schema"):
        tool.input_schema  # noqa: B018 - the read under test


@pytest.mark.parametrize(
    "fn_source",
    [
        "def f(a, /): ...",
        "def f(*args): ...",
        "def f(**kw): ...",
        "def f(when: 'datetime.date') -> str: ...",
        "def f(x: int = object()) -> str: ...",
    ],
)
def test_anything_but_a_simple_plain_signature_is_read_at_once(fn_source: str) -> None:
    namespace: dict[str, Any] = {"datetime": __import__("datetime")}
    exec(fn_source, namespace)
    assert readable_later(namespace["f"]) is None
