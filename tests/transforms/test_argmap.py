"""Fusion: stacked argument transforms compose into one ArgMap over the un-mapped base tool."""

from __future__ import annotations

import pytest

from toolweave import Context, Server, Tool, TransformError
from toolweave.transforms import (
    Annotate,
    Arg,
    ExcludeArgs,
    InjectArgs,
    InjectContext,
    MapResult,
    MaskErrors,
    Rename,
    TransformArgs,
)
from toolweave.transforms.argmap import ArgMap, MappedRun

from .conftest import Calls


def five_stacked(tool: Tool) -> Tool:
    return tool.with_transforms(
        TransformArgs({"q": "query"}),
        Rename("find"),
        TransformArgs({"limit": Arg(name="max", default=3)}),
        MaskErrors(),
        ExcludeArgs("debug"),
        Annotate(read_only=True),
        InjectArgs(api_key="k"),
        TransformArgs({"query": "text"}),
    )


def test_stacked_argument_transforms_share_one_map_over_the_base(search_tool: Tool) -> None:
    mapped = MappedRun.of(five_stacked(search_tool).run)
    assert mapped is not None
    assert mapped.inner is search_tool.run and mapped.base is search_tool
    assert dict(mapped.argmap.forward) == {"text": "q", "max": "limit"}


def test_the_lineage_still_records_every_step(search_tool: Tool) -> None:
    tool, steps = five_stacked(search_tool), 0
    while tool.parent is not None:
        steps, tool = steps + 1, tool.parent
    assert steps == 8


async def test_fused_tool_behaves_like_the_stack(search_tool: Tool, calls: Calls) -> None:
    server = Server("t")
    server.add_tool(five_stacked(search_tool))
    await server.call_tool("find", {"text": "x"})
    assert calls[-1] == {"q": "x", "limit": 3, "api_key": "k", "debug": False}


def test_map_result_in_between_nests_instead_of_fusing(search_tool: Tool) -> None:
    mapped = MapResult(lambda r: r).apply(TransformArgs({"q": "query"}).apply(search_tool))
    tool = ExcludeArgs("debug").apply(mapped)
    below = MappedRun.of(tool.run)
    assert below is not None and below.base is mapped


async def test_context_and_sources_survive_fusion(calls: Calls) -> None:
    async def f(a: str, ctx_param: object = None, who: str = "") -> str:
        calls.append({"a": a, "ctx": ctx_param, "who": who})
        return a

    tool = Tool.from_function(f).with_transforms(
        InjectContext("ctx_param"), InjectArgs(who=lambda ctx, args: args["a"] * 2), TransformArgs({"a": "b"})
    )
    server = Server("t")
    server.add_tool(tool)
    ctx = Context()
    await server.call_tool("f", {"b": "z"}, ctx=ctx)
    assert calls[-1] == {"a": "z", "ctx": ctx, "who": "zz"}


def test_then_maps_newest_names_to_base_names() -> None:
    inner = ArgMap(forward={"query": "q"}, constants={"key": 1})
    outer = ArgMap(forward={"text": "query"}, constants={"limit": 5})
    fused = outer.then(inner)
    assert dict(fused.forward) == {"text": "q"}
    assert fused.reverse == {"q": "text"}
    assert dict(fused.constants) == {"key": 1, "limit": 5}


def test_repr_names_constants_but_never_shows_their_values() -> None:
    text = repr(ArgMap(forward={}, constants={"api_key": "sk-live-1"}))
    assert "api_key" in text and "sk-live-1" not in text


async def test_values_hidden_after_a_retype_reach_the_base_in_its_type(search_tool: Tool, calls: Calls) -> None:
    counter = iter(range(100))
    tool = search_tool.with_transforms(
        TransformArgs({"limit": Arg(type=str), "q": Arg(type=int)}),
        InjectArgs(limit="7", q=lambda: next(counter)),
    )
    server = Server("t")
    server.add_tool(tool)
    await server.call_tool("search", {})
    assert calls[-1]["limit"] == 7 and calls[-1]["q"] == "0"


def test_hidden_value_that_cannot_reach_the_base_type_fails_at_composition(search_tool: Tool) -> None:
    retyped = TransformArgs({"limit": Arg(type=str)}).apply(search_tool)
    with pytest.raises(TransformError, match=r"tool 'search'.*does not fit"):
        InjectArgs(limit="seven").apply(retyped)
