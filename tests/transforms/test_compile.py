"""The compiled fast path does exactly what MappedRun's general path does."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolweave import Context, ToolResult, TransformError
from toolweave.testing import fake_tool
from toolweave.transforms import Arg, InjectArgs, InjectContext, MappedRun, TransformArgs


async def echo(arguments: dict[str, Any], ctx: Context) -> ToolResult:
    return ToolResult(structured_content=arguments)


def schema(*names: str) -> dict[str, Any]:
    return {"type": "object", "properties": {n: {} for n in names}, "required": list(names)}


async def both(tool: Any, arguments: dict[str, Any], ctx: Context) -> tuple[Any, Any]:
    mapped = MappedRun.of(tool.run)
    assert mapped is not None
    fast = await tool.run(dict(arguments), ctx)
    general = await mapped.general(dict(arguments), ctx)
    return fast.structured_content, general.structured_content


async def test_stack_is_compiled_and_matches_the_general_path() -> None:
    counter = iter(range(100))
    tool = fake_tool("t", schema("a", "b", "c", "d", "e"), reply=echo).with_transforms(
        TransformArgs({"a": "x", "b": Arg(hide=True, default_factory=lambda: next(counter))}),
        InjectArgs(c="const", d=lambda ctx, args: args["x"] * 2),
        InjectContext("e"),
    )
    assert tool.run.__name__ == "mapped_t"
    ctx = Context()
    fast, general = await both(tool, {"x": "v"}, ctx)
    assert fast == {"a": "v", "b": 0, "c": "const", "d": "vv", "e": ctx}
    assert general == {"a": "v", "b": 1, "c": "const", "d": "vv", "e": ctx}


async def test_unexpected_argument_sets_take_the_general_path() -> None:
    tool = fake_tool("t", schema("a", "b"), reply=echo).with_transforms(TransformArgs({"a": "x"}))
    ctx = Context()
    assert await both(tool, {"x": 1, "b": 2, "extra": 3}, ctx) == ({"a": 1, "b": 2, "extra": 3},) * 2
    assert await both(tool, {"b": 2}, ctx) == ({"b": 2},) * 2


async def test_awkward_names_compile_safely() -> None:
    awkward = ['a"b', "c'd", "e\\nf", "g\nh", "{i}", "__import__('os')"]
    tool = fake_tool("t", schema(*awkward), reply=echo).with_transforms(
        TransformArgs({name: f"new_{index}" for index, name in enumerate(awkward[:3])}),
        InjectArgs(**{awkward[3]: "x"}),
    )
    arguments = {f"new_{i}": i for i in range(3)} | {awkward[4]: 4, awkward[5]: 5}
    fast, general = await both(tool, arguments, Context())
    assert (
        fast == general == {awkward[0]: 0, awkward[1]: 1, awkward[2]: 2, awkward[3]: "x", awkward[4]: 4, awkward[5]: 5}
    )


async def test_async_sources_use_the_general_path() -> None:
    async def later(ctx: Context) -> str:
        return "async"

    tool = fake_tool("t", schema("a", "b"), reply=echo).with_transforms(InjectArgs(b=later))
    assert isinstance(tool.run, MappedRun)
    assert (await tool.run({"a": 1}, Context())).structured_content == {"a": 1, "b": "async"}


NAMES = ["a", "b", "c", "d"]


@settings(max_examples=60, deadline=None)
@given(
    renames=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(["a", "b", "x", "y"]), max_size=4),
    hide=st.sets(st.sampled_from(NAMES), max_size=3),
    drop=st.sets(st.sampled_from(["w", "x", "y", "z", *NAMES]), max_size=2),
)
async def test_random_maps_agree(renames: dict[str, str], hide: set[str], drop: set[str]) -> None:
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
    fast, general = await both(tool, arguments, Context())
    assert fast == general
