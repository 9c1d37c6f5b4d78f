"""A transform that does not fit a tool it selects is refused where it meets the tool, never per request."""

from __future__ import annotations

import logging

import pytest

from toolweave import Server, Tool, TransformError
from toolweave.testing import connect
from toolweave.transforms import ExcludeArgs, Rename


def search(q: str, n: int = 10) -> str:
    return f"{q} {n}"


def other(x: int) -> int:
    return x


def docs() -> Server:
    server = Server("docs")
    server.add_tool(search)
    server.add_tool(other)
    return server


async def test_add_transform_refuses_a_transform_that_does_not_fit_a_tool_it_selects() -> None:
    server = docs()
    with pytest.raises(TransformError, match=r"tool 'search', argument 'zzz'"):
        server.add_transform(ExcludeArgs("zzz"), tools="sea*")
    assert server.transforms == ()
    assert (await server.call_tool("other", {"x": 1})).text == "1"
    assert "zzz" not in str(server.catalog.get("search").tool.input_schema)


def test_a_refused_transform_leaves_the_earlier_ones_applied() -> None:
    server = docs()
    server.add_transform(ExcludeArgs("n"), tools="search")
    with pytest.raises(TransformError, match="'n'"):
        server.add_transform(ExcludeArgs("n"), tools="search")  # (already hidden by the first)
    server.add_transform(Rename("lookup"), tools="search")
    tool = server.catalog.get("lookup").tool
    assert list(tool.input_schema["properties"]) == ["q"]


def test_a_local_tool_added_later_that_a_transform_does_not_fit_is_refused_at_add_tool() -> None:
    server = Server("docs")
    server.add_transform(ExcludeArgs("n"), tools="*")
    server.add_tool(search)
    with pytest.raises(TransformError, match=r"tool 'other', argument 'n'"):
        server.add_tool(other)
    assert list(server.local_tools) == ["search"]
    assert [tool.name for tool in server.catalog.tools] == ["search"]


def test_transforms_added_one_after_another_apply_in_order_to_old_and_new_tools() -> None:
    server = docs()
    server.add_transform(Rename("lookup"), tools="search")
    server.add_transform(Rename("find"), tools="lookup")
    server.add_tool(lambda q: q, name="later")
    server.add_transform(Rename("later2"), tools="later")
    assert [tool.name for tool in server.catalog.tools] == ["find", "other", "later2"]


def test_a_replaced_or_disabled_tool_is_transformed_afresh() -> None:
    server = Server("docs", on_duplicate="replace")
    server.add_tool(search)
    server.add_transform(ExcludeArgs("n"), tools="search")

    def replacement(q: str, n: int = 1, extra: str = "") -> str:
        return q

    server.add_tool(replacement, name="search")
    assert list(server.catalog.get("search").tool.input_schema["properties"]) == ["q", "extra"]
    server.tools.set_enabled("search", False)
    assert [tool.name for tool in server.catalog.tools] == []
    server.tools.set_enabled("search", True)
    assert list(server.catalog.get("search").tool.input_schema["properties"]) == ["q", "extra"]


def test_mount_refuses_a_child_whose_tools_a_transform_of_the_parent_does_not_fit() -> None:
    gateway = Server("gateway")
    gateway.add_transform(ExcludeArgs("n"), tools="docs_*")
    with pytest.raises(TransformError, match=r"tool 'docs_other', argument 'n'"):
        gateway.mount(docs(), prefix="docs")
    assert gateway.mounts == ()


async def test_a_mounted_tool_appearing_later_that_a_transform_does_not_fit_is_left_out_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    child = Server("child")
    child.add_tool(search)
    gateway = Server("gateway")
    gateway.mount(child, prefix="c")
    gateway.add_transform(ExcludeArgs("n"), tools="c_*")
    child.add_tool(other)  # the child cannot know its parent's transforms
    with caplog.at_level(logging.ERROR, logger="toolweave.server"):
        async with connect(gateway) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool("c_search", {"q": "x"})
    assert listed == ["c_search"]
    assert not result.is_error and result.content[0].text == "x 10"
    assert "tool 'c_other', argument 'n'" in caplog.text
    assert "mount 'c'" in caplog.text or "server 'child'" in caplog.text  # the origin is named


async def test_each_transform_is_applied_once_per_tool_whichever_call_brings_them_together() -> None:
    applied: list[str] = []

    class Counting:
        def apply(self, tool: Tool) -> Tool:
            applied.append(tool.name)
            return tool

    server = docs()
    server.add_transform(Counting())
    server.add_tool(lambda: "late", name="late")
    for _ in range(3):
        await server.call_tool("other", {"x": 1})
    server.add_transform(Rename("searched"), tools="search")  # a later transform: the first is not redone
    await server.call_tool("other", {"x": 1})
    child = Server("child")
    child.add_tool(lambda: "hi", name="hello")
    server.mount(child, prefix="c")  # the mount checks the child's tools, and only those
    await server.call_tool("other", {"x": 1})
    # (a mounted tool is not remembered: applied when the mount checks it, and again when compiled)
    assert sorted(applied) == ["c_hello", "c_hello", "late", "other", "search"]
