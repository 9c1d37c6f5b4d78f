"""Results a client's SDK can always accept: structured content is an object that matches the
advertised output schema, or the call is a masked internal error; JSON text is valid JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client
from pydantic import BaseModel

from toolweave import Image, Message, Server, TextContent, Tool, ToolResult
from toolweave.core.content import ContentBlock
from toolweave.transforms import MapResult

PNG = b"\x89PNG\r\n\x1a\n-not-really"
NUMBER = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}


def server_with_odd_results() -> Server:
    server = Server("odd")

    @server.tool
    def not_an_object() -> ToolResult:
        """Structured content that is a list."""
        return ToolResult([TextContent("[1, 2]")], structured_content=[1, 2])

    @server.tool
    def blocks() -> list:  # type: ignore[type-arg]
        """Content blocks under a bare `list` annotation."""
        return [TextContent("one"), TextContent("two")]

    @server.tool
    def off_annotation() -> dict[str, int]:
        """A return value that breaks its own annotation."""
        return {"a": "many"}  # type: ignore[dict-item]

    @server.tool
    def mean() -> dict[str, float]:
        """A NaN in the result."""
        return {"mean": math.nan, "max": math.inf}

    @server.tool
    def counts() -> dict[str, float]:
        """A value the annotation converts (ints for floats)."""
        return {"n": 3}

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_results_that_would_break_the_client_are_masked(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    async with Client(server_with_odd_results().as_mcp(), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        not_object = await client.call_tool("not_an_object", {})
        off = await client.call_tool("off_annotation", {})
    assert not_object.is_error and "(incident " in not_object.content[0].text
    assert off.is_error and "(incident " in off.content[0].text
    assert listed["off_annotation"].output_schema is not None
    assert "structured content must be a JSON object, not list" in caplog.text
    assert "does not match the return annotation (a: Input should be a valid integer" in caplog.text
    assert "many" not in caplog.text  # the value itself is never logged


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unconstrained_list_advertises_no_schema_it_cannot_honour(mode: str) -> None:
    async with Client(server_with_odd_results().as_mcp(), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("blocks", {})
    assert listed["blocks"].output_schema is None
    assert not result.is_error and [block.text for block in result.content] == ["one", "two"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_nan_under_a_number_schema_is_refused_and_converted_values_go_out(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Client(server_with_odd_results().as_mcp(), mode=mode) as client:
        result = await client.call_tool("mean", {})
        converted = await client.call_tool("counts", {})
    assert result.is_error and "(incident " in result.content[0].text  # null would break "type: number"
    assert "mean: Input should be a finite number" in caplog.text
    assert converted.structured_content == {"n": 3.0}


def test_json_text_turns_nan_and_infinity_into_null() -> None:
    import anyio

    from toolweave import Tool

    def stats() -> Any:  # no output schema: text only
        return {"mean": math.nan, "max": -math.inf}

    server = Server("s")
    server.add_tool(Tool.from_function(stats))
    result: Any = anyio.run(server.call_tool, "stats", {})
    assert json.loads(result.text) == {"mean": None, "max": None}


def server_with_content_annotations() -> Server:
    server = Server("content")

    @server.tool
    def maybe_image() -> Image | None:
        """An image, when there is one."""
        return Image(data=PNG, format="png")

    @server.tool
    def text_or_image() -> str | Image:
        """A caption or a picture."""
        return Image(data=PNG, format="png")

    @server.tool
    def captioned() -> list[str | Image]:
        """A caption and a picture."""
        return ["a cat", Image(data=PNG, format="png")]

    @server.tool
    def block() -> ContentBlock:
        """One content block (a union of the block types)."""
        return TextContent("plain")

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_annotations_that_may_hold_content_advertise_no_schema_and_send_blocks(mode: str) -> None:
    async with Client(server_with_content_annotations().as_mcp(), mode=mode) as client:
        listed = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        results = {name: await client.call_tool(name, {}) for name in listed}
    assert listed == dict.fromkeys(["maybe_image", "text_or_image", "captioned", "block"])
    assert {name: [block.type for block in result.content] for name, result in results.items()} == {
        "maybe_image": ["image"],
        "text_or_image": ["image"],
        "captioned": ["text", "image"],
        "block": ["text"],
    }
    assert not any(result.is_error or result.structured_content for result in results.values())


def server_with_infinite_numbers() -> Server:
    server = Server("infinite")

    @server.tool
    def ratio() -> float:
        """A plain float annotation (the fast path) returning infinity."""
        return math.inf

    def explicit() -> ToolResult:
        return ToolResult([TextContent("x")], structured_content={"x": math.nan})

    server.add_tool(Tool.from_function(explicit, output_schema=NUMBER))

    def measured() -> dict[str, float]:
        return {"x": 1.5}

    server.add_tool(Tool.from_function(measured).with_transforms(MapResult(lambda r: {"x": -math.inf}, NUMBER)))
    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_infinity_or_nan_under_a_number_schema_is_masked_whatever_produced_it(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Client(server_with_infinite_numbers().as_mcp(), mode=mode) as client:
        results = [await client.call_tool(name, {}) for name in ("ratio", "explicit", "measured")]
    # sent on, each would arrive as `null` under `"type": "number"` and make the client's SDK raise
    for result in results:
        assert result.is_error and "(incident " in result.content[0].text
    assert "(root): Input should be a finite number" in caplog.text
    assert caplog.text.count("the structured content holds NaN or infinity, which JSON cannot carry (x)") == 2


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_prompt_and_resource_json_text_turns_nan_into_null(mode: str) -> None:
    server = Server("s")

    @server.prompt
    def stats() -> list[Message]:
        """Statistics as JSON."""
        return [Message({"mean": math.nan})]

    @server.resource("data://stats")
    def stats_resource() -> dict[str, float]:
        return {"mean": math.inf}

    async with Client(server.as_mcp(), mode=mode) as client:
        prompt = await client.get_prompt("stats")
        [contents] = (await client.read_resource("data://stats")).contents
    assert json.loads(prompt.messages[0].content.text, parse_constant=lambda c: pytest.fail(f"{c} is not JSON")) == {
        "mean": None
    }
    assert json.loads(contents.text, parse_constant=lambda c: pytest.fail(f"{c} is not JSON")) == {"mean": None}


class Reading(BaseModel):
    x: float


@dataclass
class Sample:
    x: float


class Nested(BaseModel):
    inner: Reading


def server_with_non_finite_objects() -> Server:
    server = Server("objects")

    @server.tool
    def model() -> Reading:
        """A model (its own config allows NaN) holding NaN."""
        return Reading(x=math.nan)

    @server.tool
    def sample() -> Sample:
        """A dataclass holding infinity."""
        return Sample(x=math.inf)

    @server.tool
    def nested() -> Nested:
        """A model inside a model holding -infinity."""
        return Nested(inner=Reading(x=-math.inf))

    @server.tool
    def loose() -> dict[str, Any]:
        """`Any` values are not checked as floats by the annotation."""
        return {"mean": math.nan}

    @server.tool
    def many() -> list[Reading]:
        """Models inside a list keep their own config too."""
        return [Reading(x=1.0), Reading(x=math.inf)]

    @server.tool
    def maybe() -> Reading | None:
        """And a model in a union."""
        return Reading(x=math.nan)

    @server.tool
    def words() -> dict[str, str]:
        """Text that only says NaN goes out."""
        return {"note": "NaN and Infinity are words here"}

    @server.tool
    def fine() -> Nested:
        """A finite one goes out."""
        return Nested(inner=Reading(x=2.5))

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_nan_or_infinity_inside_models_dataclasses_and_any_values_is_masked(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    # (pydantic would dump each as `null`: under `"type": "number"` the client's SDK raises)
    async with Client(server_with_non_finite_objects().as_mcp(), mode=mode) as client:
        names = ("model", "sample", "nested", "loose", "many", "maybe")
        failed = {name: await client.call_tool(name, {}) for name in names}
        fine = await client.call_tool("fine", {})
        words = await client.call_tool("words", {})
    for result in failed.values():
        assert result.is_error and "(incident " in result.content[0].text
    assert fine.structured_content == {"inner": {"x": 2.5}}
    assert words.structured_content == {"note": "NaN and Infinity are words here"}
    for where in ("x", "inner/x", "mean", "1/x"):
        assert f"the return value holds NaN or infinity, which JSON cannot carry ({where})" in caplog.text
