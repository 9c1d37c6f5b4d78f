"""Return values become results as MCP users expect, serialised once."""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from toolweave import (
    Audio,
    AudioContent,
    BlobResourceContents,
    Context,
    EmbeddedResource,
    File,
    Image,
    ImageContent,
    TextContent,
    TextResourceContents,
    Tool,
    ToolResult,
)
from toolweave.core.result import WRAP_KEY


class Weather(BaseModel):
    city: str
    celsius: float


@dataclass
class Pair:
    left: int
    right: int


async def run(fn: Any, **arguments: Any) -> ToolResult:
    tool = Tool.from_function(fn)
    return await tool.run(tool.validator.validate(arguments), Context())


async def test_str_becomes_one_text_block_without_structured_content() -> None:
    def f() -> str:
        return "hello"

    result = await run(f)
    assert result.content == [TextContent("hello")] and result.structured_content is None


async def test_a_dict_becomes_json_text_and_structured_content() -> None:
    def f() -> dict[str, int]:
        return {"a": 1}

    result = await run(f)
    assert json.loads(result.text) == {"a": 1} and result.structured_content == {"a": 1}


async def test_a_model_has_an_object_output_schema_and_matching_structured_content() -> None:
    def f() -> Weather:
        return Weather(city="Oslo", celsius=3.5)

    tool = Tool.from_function(f)
    assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    assert set(tool.output_schema["properties"]) == {"city", "celsius"}
    result = await run(f)
    assert result.structured_content == {"city": "Oslo", "celsius": 3.5}
    assert json.loads(result.text) == result.structured_content


async def test_a_dataclass_is_serialised_like_a_model() -> None:
    def f() -> Pair:
        return Pair(1, 2)

    assert (await run(f)).structured_content == {"left": 1, "right": 2}


@pytest.mark.parametrize(("annotation", "value"), [(int, 3), (list[int], [1, 2]), (bool, False)])
async def test_non_object_results_are_wrapped_under_result(annotation: Any, value: Any) -> None:
    def f():  # type: ignore[no-untyped-def]
        return value

    f.__annotations__ = {"return": annotation}
    tool = Tool.from_function(f)
    assert tool.output_schema is not None and tool.output_schema[WRAP_KEY] is True
    assert tool.output_schema["required"] == ["result"]
    result = await run(f)
    assert result.structured_content == {"result": value}
    assert json.loads(result.text) == value


async def test_without_an_output_schema_data_is_text_only() -> None:
    def f():  # type: ignore[no-untyped-def]
        return {"a": 1}

    result = await run(f)
    assert json.loads(result.text) == {"a": 1} and result.structured_content is None


async def test_bytes_become_an_embedded_blob() -> None:
    def f() -> bytes:
        return b"\x00\x01"

    (block,) = (await run(f)).content
    assert isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents)
    assert base64.b64decode(block.resource.blob) == b"\x00\x01"


async def test_media_helpers_become_image_audio_and_resource_blocks(tmp_path: Any) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("remember")

    def f() -> list[Any]:
        return [Image(data=b"png", format="png"), Audio(data=b"wav", format="wav"), File(path=notes), "caption"]

    image, audio, file, caption = (await run(f)).content
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == b"png"
    assert isinstance(audio, AudioContent) and audio.mime_type == "audio/wav"
    assert isinstance(file, EmbeddedResource) and isinstance(file.resource, TextResourceContents)
    assert file.resource.text == "remember"
    assert caption == TextContent("caption")


async def test_none_gives_no_content() -> None:
    def f() -> None:
        return None

    result = await run(f)
    assert result.content == [] and result.structured_content is None


async def test_a_returned_tool_result_passes_through() -> None:
    given = ToolResult([TextContent("raw")], structured_content={"x": 1}, is_error=True, meta={"m": 1})

    def f() -> ToolResult:
        return given

    assert await run(f) is given


class Opaque:
    """A return type pydantic cannot describe (an arbitrary class)."""


async def test_a_return_type_without_a_json_schema_is_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def first() -> Opaque:
        return Opaque()

    def second() -> Opaque:
        return Opaque()

    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        tools = [Tool.from_function(fn) for fn in (first, second)]
        schemas = [tool.output_schema for tool in tools]
    assert schemas == [None, None]
    said = [r.getMessage() for r in caplog.records if "has no JSON Schema" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("the return type Opaque has no JSON Schema (")
    assert said[0].endswith("): tools returning it have no output schema")
