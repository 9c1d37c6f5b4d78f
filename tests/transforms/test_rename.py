"""Rename: new name, title and description; the original stays in the lineage."""

import pytest

from toolweave import Tool, TransformError
from toolweave.transforms import Rename


def test_rename_changes_name_title_and_description(search_tool: Tool) -> None:
    tool = Rename("find", title="Find", description="Find things.").apply(search_tool)
    assert (tool.name, tool.title, tool.description) == ("find", "Find", "Find things.")


def test_rename_keeps_what_it_is_not_given(search_tool: Tool) -> None:
    tool = Rename(description="Other.").apply(search_tool)
    assert tool.name == "search" and tool.description == "Other."


def test_rename_keeps_the_original_reachable(search_tool: Tool) -> None:
    tool = Rename("find").apply(search_tool)
    assert tool.parent is search_tool and tool.root.name == "search"


def test_rename_shares_the_run_so_calls_cost_nothing_extra(search_tool: Tool) -> None:
    assert Rename("find").apply(search_tool).run is search_tool.run


def test_rename_refuses_an_invalid_tool_name() -> None:
    with pytest.raises(TransformError, match="'bad name'"):
        Rename("bad name")


async def test_rename_works_on_schema_tools(schema_tool: Tool) -> None:
    assert Rename("find").apply(schema_tool).input_schema == schema_tool.input_schema
