"""Annotate: set or merge hints, tags and meta."""

from __future__ import annotations

from typing import Any

import mcp.types
import pytest

from toolweave import Server, Tool, ToolAnnotations
from toolweave.testing import connect
from toolweave.transforms import Annotate


def test_hints_are_set_and_unset_ones_kept(search_tool: Tool) -> None:
    tool = search_tool.replace(annotations=ToolAnnotations(open_world_hint=True))
    tool = Annotate(read_only=True, idempotent=True, title="Search").apply(tool)
    assert tool.annotations is not None
    assert tool.annotations.to_dict() == {
        "title": "Search",
        "readOnlyHint": True,
        "idempotentHint": True,
        "openWorldHint": True,
    }


def test_tags_are_added(search_tool: Tool) -> None:
    tool = Annotate(tags={"b"}).apply(search_tool.replace(tags=frozenset({"a"})))
    assert tool.tags == {"a", "b"}


def test_a_single_tag_string_is_one_tag(search_tool: Tool) -> None:
    assert Annotate(tags="docs").apply(search_tool).tags == {"docs"}


def test_meta_keys_are_merged(search_tool: Tool) -> None:
    tool = Annotate(meta={"b": 2}).apply(search_tool.replace(meta={"a": 1}))
    assert tool.meta == {"a": 1, "b": 2}


def test_nothing_given_changes_nothing(search_tool: Tool) -> None:
    tool = Annotate().apply(search_tool)
    assert (tool.annotations, tool.tags, tool.meta) == (
        search_tool.annotations,
        search_tool.tags,
        search_tool.meta,
    )


async def test_the_sdks_annotations_model_is_taken_as_given_to_a_tool() -> None:
    """`@server.tool(annotations=mcp.types.ToolAnnotations(...))`, as SDK users write it."""
    server = Server("s")

    @server.tool(annotations=mcp.types.ToolAnnotations(readOnlyHint=True, title="Look"))
    def look() -> str:
        return "seen"

    async with connect(server) as client:
        (listed,) = (await client.list_tools()).tools
    assert listed.annotations == mcp.types.ToolAnnotations(readOnlyHint=True, title="Look")


def test_annotations_of_another_kind_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="not list"):
        ToolAnnotations.coerce(["readOnlyHint"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "make", [lambda: Annotate(read_only="false"), lambda: ToolAnnotations.coerce({"idempotentHint": 0})]
)
def test_a_hint_that_is_not_a_boolean_is_refused(make: Any) -> None:
    """`"false"` was stored as it was: clients read it as false, `Cache` and `Retry` as true."""
    with pytest.raises(TypeError, match="is true, false or unset"):
        make()
