"""The one argument rewrite: what the compiled function hands the base tool, for any argument set."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolweave import Context, Tool, ToolResult, TransformError
from toolweave.testing import fake_tool
from toolweave.transforms import Arg, ExcludeArgs, InjectArgs, InjectContext, TransformArgs
from toolweave.transforms.argmap import MappedRun


async def echo(arguments: dict[str, Any], ctx: Context) -> ToolResult:
    return ToolResult(structured_content=arguments)


def schema(*names: str) -> dict[str, Any]:
    return {"type": "object", "properties": {n: {} for n in names}, "required": list(names)}


async def rewritten(tool: Any, arguments: dict[str, Any], ctx: Context) -> Any:
    assert MappedRun.of(tool.run) is not None
    return (await tool.run(dict(arguments), ctx)).structured_content


async def test_a_stack_compiles_to_one_function() -> None:
    counter = iter(range(100))
    tool = fake_tool("t", schema("a", "b", "c", "d", "e"), reply=echo).with_transforms(
        TransformArgs({"a": "x", "b": Arg(hide=True, default_factory=lambda: next(counter))}),
        InjectArgs(c="const", d=lambda ctx, args: args["x"] * 2),
        InjectContext("e"),
    )
    assert tool.run.__name__ == "mapped_t"
    ctx = Context()
    assert await rewritten(tool, {"x": "v"}, ctx) == {"a": "v", "b": 0, "c": "const", "d": "vv", "e": ctx}
    assert await rewritten(tool, {"x": "w"}, ctx) == {"a": "w", "b": 1, "c": "const", "d": "ww", "e": ctx}


async def test_other_argument_sets_are_renamed_too() -> None:
    tool = fake_tool("t", schema("a", "b"), reply=echo).with_transforms(TransformArgs({"a": "x"}))
    ctx = Context()
    assert await rewritten(tool, {"x": 1, "b": 2, "extra": 3}, ctx) == {"a": 1, "b": 2, "extra": 3}
    assert await rewritten(tool, {"b": 2}, ctx) == {"b": 2}
    assert await rewritten(tool, {"x": 1, "a": 0}, ctx) == {"a": 1}  # the renamed value wins


async def test_swapped_names_and_defaults_of_arguments_left_out() -> None:
    swapped = fake_tool("t", schema("a", "b"), reply=echo).with_transforms(TransformArgs({"a": "b", "b": "a"}))
    ctx = Context()
    assert await rewritten(swapped, {"a": 1, "b": 2}, ctx) == {"b": 1, "a": 2}
    assert await rewritten(swapped, {"a": 1}, ctx) == {"b": 1}
    optional = {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]}
    defaulted = fake_tool("t", optional, reply=echo).with_transforms(TransformArgs({"b": Arg(name="c", default=7)}))
    assert await rewritten(defaulted, {"a": 1}, ctx) == {"a": 1, "b": 7}
    assert await rewritten(defaulted, {"a": 1, "c": 2}, ctx) == {"a": 1, "b": 2}


async def test_awkward_names_compile_safely() -> None:
    awkward = ['a"b', "c'd", "e\\nf", "g\nh", "{i}", "__import__('os')"]
    tool = fake_tool("t", schema(*awkward), reply=echo).with_transforms(
        TransformArgs({name: f"new_{index}" for index, name in enumerate(awkward[:3])}),
        InjectArgs(**{awkward[3]: "x"}),
    )
    arguments = {f"new_{i}": i for i in range(3)} | {awkward[4]: 4, awkward[5]: 5}
    expected = {awkward[0]: 0, awkward[1]: 1, awkward[2]: 2, awkward[3]: "x", awkward[4]: 4, awkward[5]: 5}
    assert await rewritten(tool, arguments, Context()) == expected
    del arguments[awkward[5]]  # an argument set other than the exposed names
    assert await rewritten(tool, arguments, Context()) == {k: v for k, v in expected.items() if k != awkward[5]}


async def test_async_sources_are_awaited_in_the_same_function() -> None:
    async def later(ctx: Context) -> str:
        return "async"

    tool = fake_tool("t", schema("a", "b"), reply=echo).with_transforms(InjectArgs(b=later))
    assert tool.run.__name__ == "mapped_t"
    assert (await tool.run({"a": 1}, Context())).structured_content == {"a": 1, "b": "async"}


NAMES = ["a", "b", "c", "d"]


@settings(max_examples=60, deadline=None)
@given(
    renames=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(["a", "b", "x", "y"]), max_size=4),
    hide=st.sets(st.sampled_from(NAMES), max_size=3),
    drop=st.sets(st.sampled_from(["w", "x", "y", "z", *NAMES]), max_size=2),
)
async def test_random_maps_rewrite_like_the_reference(renames: dict[str, str], hide: set[str], drop: set[str]) -> None:
    renames = {k: v for k, v in renames.items() if k not in hide}
    if len(set(renames.values())) != len(renames) or not (renames or hide):
        return
    tool = fake_tool("t", schema(*NAMES), reply=echo)
    if renames:
        try:
            tool = TransformArgs(dict(renames)).apply(tool)
        except TransformError:  # renamed onto a name that stays: refused, as it should be
            assume(False)
    if hide:
        tool = InjectArgs(**{renames.get(n, n): f"hidden-{n}" for n in hide}).apply(tool)
    exposed = [renames.get(n, n) for n in NAMES if n not in hide]
    arguments = {name: f"value-{name}" for name in exposed if name not in drop}
    expected = {base: f"value-{renames.get(base, base)}" for base in NAMES if renames.get(base, base) in arguments}
    expected |= {n: f"hidden-{n}" for n in hide}
    assert await rewritten(tool, arguments, Context()) == expected


async def test_a_tool_whose_every_argument_is_hidden() -> None:
    tool = fake_tool("t", schema("a", "b"), reply=echo).with_transforms(InjectArgs(a="x", b=lambda: "y"))
    assert await rewritten(tool, {}, Context()) == {"a": "x", "b": "y"}


def appending(q: str, seen: list[int] = []) -> dict[str, Any]:  # noqa: B006 - the shared default under test
    seen.append(len(seen))
    return {"seen": seen}


@pytest.mark.parametrize(
    "hide",
    [ExcludeArgs("seen"), TransformArgs({"seen": Arg(hide=True)}), InjectArgs(seen=[7])],
    ids=["excluded", "hidden", "injected"],
)
async def test_a_hidden_list_is_a_fresh_copy_for_every_call(hide: Any) -> None:
    """One list was handed to every call of every caller: what one call appended, the next saw."""
    tool = Tool.from_function(appending).with_transforms(hide)
    first, second = [(await tool.run({"q": "x"}, Context())).structured_content for _ in range(2)]
    assert first == second and len(first["seen"]) in (1, 2)  # ([0], or [7, 1] when injected)
