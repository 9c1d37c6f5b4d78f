"""MapResult: post-process results; output schema and structured content stay consistent."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from toolweave import Context, Server, TextContent, Tool, ToolResult
from toolweave.transforms import MapResult


class Forecast(BaseModel):
    city: str
    temp_c: float
    internal_id: str


async def forecast(city: str) -> Forecast:
    return Forecast(city=city, temp_c=21.5, internal_id="x-9")


def serve(tool: Tool) -> Server:
    server = Server("t", mask_error_details=False)
    server.add_tool(tool)
    return server


def consistent(tool: Tool, result: ToolResult) -> bool:
    if tool.output_schema is None:
        return result.structured_content is None
    return Draft202012Validator(dict(tool.output_schema)).is_valid(result.structured_content)


async def test_plain_value_replaces_the_result_under_a_new_schema() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tool = MapResult(lambda r: {"city": r.structured_content["city"]}, output_schema=schema).apply(
        Tool.from_function(forecast)
    )
    result = await serve(tool).call_tool("forecast", {"city": "Oslo"})
    assert result.structured_content == {"city": "Oslo"} and "internal_id" not in result.text
    assert consistent(tool, result)


async def test_removing_the_output_schema_drops_structured_content() -> None:
    tool = MapResult(lambda r: r, output_schema=None).apply(Tool.from_function(forecast))
    result = await serve(tool).call_tool("forecast", {"city": "Oslo"})
    assert tool.output_schema is None and consistent(tool, result)


async def test_kept_schema_and_mismatching_result_is_an_error_not_a_wrong_answer() -> None:
    tool = MapResult(lambda r: {"nope": 1}).apply(Tool.from_function(forecast))
    result = await serve(tool).call_tool("forecast", {"city": "Oslo"})
    assert result.is_error and "does not match the output schema" in result.text


async def test_python_type_as_output_schema_wraps_non_objects() -> None:
    tool = MapResult(lambda r: r.structured_content["temp_c"], output_schema=float).apply(Tool.from_function(forecast))
    result = await serve(tool).call_tool("forecast", {"city": "Oslo"})
    assert result.structured_content == {"result": 21.5} and consistent(tool, result)


async def test_async_fn_with_context() -> None:
    async def stamp(result: ToolResult, ctx: Context) -> ToolResult:
        return ToolResult([TextContent(f"{result.text} @{ctx.request_id}")])

    tool = MapResult(stamp, output_schema=None).apply(Tool.from_function(forecast))
    result = await serve(tool).call_tool("forecast", {"city": "Oslo"}, ctx=Context(request_id="r1"))
    assert result.text.endswith("@r1")


async def test_error_results_pass_through_unmapped() -> None:
    async def broken(city: str) -> str:
        raise ValueError("down")

    tool = MapResult(lambda r: "mapped").apply(Tool.from_function(broken))
    result = await serve(tool).call_tool("broken", {"city": "x"})
    assert result.is_error and "mapped" not in result.text


async def test_works_on_schema_tools(schema_tool: Tool) -> None:
    tool = MapResult(lambda r: {"keys": sorted(r.structured_content)}, output_schema=dict[str, list[str]]).apply(
        schema_tool
    )
    result = await serve(tool).call_tool("lookup", {"q": "x", "credential": {"token": "t"}})
    assert result.structured_content == {"keys": ["credential", "q"]} and consistent(tool, result)


class Summarize:
    """An async callable object, as a class-based mapper is written."""

    async def __call__(self, result: ToolResult) -> dict[str, str]:
        return {"city": result.structured_content["city"]}  # type: ignore[index]


async def city_of(result: ToolResult) -> dict[str, str]:
    return {"city": result.structured_content["city"]}  # type: ignore[index]


@pytest.mark.parametrize(
    "mapper",
    [Summarize(), lambda result: city_of(result), lambda result, verbose=False: {"city": "Oslo"}],
    ids=["async callable object", "lambda returning a coroutine", "second argument with a default"],
)
async def test_every_kind_of_mapper_gives_its_value(mapper: Any) -> None:
    """The coroutine was never awaited (an internal error), and `verbose` was handed the context."""
    tool = Tool.from_function(forecast).with_transforms(MapResult(mapper, output_schema=dict[str, str]))
    result = await serve(tool).call_tool("forecast", {"city": "Oslo"})
    assert not result.is_error and result.structured_content == {"city": "Oslo"}


def test_a_mapper_that_is_not_callable_is_refused_when_made() -> None:
    with pytest.raises(TypeError, match="MapResult takes a function of the result, not int"):
        MapResult(5)


@pytest.mark.parametrize("mapper", [lambda: None, lambda result, ctx, extra: None], ids=["no argument", "three"])
def test_a_mapper_that_cannot_take_the_result_is_refused_when_made(mapper: Any) -> None:
    """It was taken, and every call failed: it is called with (result) or (result, ctx)."""
    with pytest.raises(TypeError, match=r"^MapResult: <lambda> must take \(result\) or \(result, ctx\)$"):
        MapResult(mapper)


def test_an_output_schema_json_schema_cannot_apply_is_refused_when_made() -> None:
    """It was taken, and every result failed its check as an internal error (`Unknown type 'int'`)."""
    schema = {"type": "object", "properties": {"n": {"type": "int"}}}
    with pytest.raises(TypeError, match=r"^MapResult: output_schema cannot be applied: properties\.n\.type is 'int'"):
        MapResult(lambda result: {"n": 3}, output_schema=schema)
