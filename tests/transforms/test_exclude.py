"""ExcludeArgs: drop arguments that have defaults; the default is used."""

from __future__ import annotations

import pytest

from toolweave import Server, Tool, TransformError
from toolweave.transforms import ExcludeArgs

from .conftest import Calls


async def test_excluded_argument_leaves_the_schema_and_gets_its_default(search_tool: Tool, calls: Calls) -> None:
    tool = ExcludeArgs("debug", "api_key").apply(search_tool)
    assert list(tool.input_schema["properties"]) == ["q", "limit"]
    server = Server("t")
    server.add_tool(tool)
    await server.call_tool("search", {"q": "x"})
    assert calls[-1] == {"q": "x", "limit": 10, "api_key": "", "debug": False}


def test_excluding_a_required_argument_names_tool_and_argument(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'search', argument 'q'.*no default"):
        ExcludeArgs("q").apply(search_tool)


def test_excluding_a_missing_argument_names_tool_and_argument(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'search', argument 'nope'"):
        ExcludeArgs("nope").apply(search_tool)


def test_exclude_needs_a_name() -> None:
    with pytest.raises(ValueError, match="at least one"):
        ExcludeArgs()


async def test_schema_tool_excluded_default_is_sent(schema_tool: Tool, calls: Calls) -> None:
    tool = ExcludeArgs("page").apply(schema_tool)
    assert "page" not in tool.input_schema["properties"]
    server = Server("t")
    server.add_tool(tool)
    await server.call_tool("lookup", {"q": "x", "credential": {"token": "t"}})
    assert calls[-1]["page"] == 1


async def test_schema_tool_optional_argument_without_default_is_simply_not_sent(
    schema_tool: Tool, calls: Calls
) -> None:
    tool = ExcludeArgs("options").apply(schema_tool)
    server = Server("t")
    server.add_tool(tool)
    await server.call_tool("lookup", {"q": "x", "credential": {"token": "t"}})
    assert "options" not in calls[-1]


def test_schema_tool_excluding_a_required_argument_is_refused(schema_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'lookup', argument 'q'"):
        ExcludeArgs("q").apply(schema_tool)
