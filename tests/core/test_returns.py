"""What a function tool returns: a generator's items are its result, described and checked as the
list its annotation promises (`Iterator[T]` and `AsyncIterator[T]` as `Generator[T, ...]` always were)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Generator, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from toolweave import Server
from toolweave.testing import connect


class Point(BaseModel):
    x: int


def numbers(n: int) -> Iterator[int]:
    yield from range(n)


def counted(n: int) -> Generator[int, None, str]:
    yield from range(n)
    return "done"


async def points(n: int) -> AsyncIterator[Point]:
    for x in range(n):
        yield Point(x=x)


def wrong_items(n: int) -> Iterator[int]:
    yield "not a number"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fn", "items", "result"),
    [
        (numbers, {"type": "integer"}, [0, 1]),
        (counted, {"type": "integer"}, [0, 1]),
        (points, {"$ref": "#/$defs/Point"}, [{"x": 0}, {"x": 1}]),
    ],
)
async def test_a_generator_tool_lists_and_returns_the_list_of_its_items(
    fn: Any, items: dict[str, Any], result: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    server = Server("s")
    with caplog.at_level(logging.WARNING, logger="toolweave"):
        server.add_tool(fn)
    async with connect(server) as client:
        [listed] = (await client.list_tools()).tools
        answer = await client.call_tool(fn.__name__, {"n": 2})
    assert listed.output_schema is not None
    assert listed.output_schema["properties"]["result"] == {"items": items, "type": "array"}
    assert not answer.is_error and answer.structured_content == {"result": result}
    assert not caplog.records  # (it was "the return type Iterator has no JSON Schema")


async def test_a_generator_yielding_what_its_annotation_does_not_promise_is_an_error() -> None:
    server = Server("s")
    server.add_tool(wrong_items)
    async with connect(server) as client:
        answer = await client.call_tool("wrong_items", {"n": 1})
    assert answer.is_error and answer.structured_content is None
