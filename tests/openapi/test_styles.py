"""Array and object arguments written as their parameter's `style` and `explode` say (OpenAPI 3
serialization), in the path, the query, a header and a cookie, as a real app on 127.0.0.1 receives
them. They went out as JSON text (`/items/%5B1%2C2%5D`, `X-P: [3,4]`) whatever the style."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.serving import served
from toolweave import RemoteServer
from toolweave.testing import connect


async def _received(request: Request) -> JSONResponse:
    """What arrived: the path after `/items/` as sent, the query decoded, the `X-P` header and the cookies."""
    return JSONResponse(
        {
            "path": request.scope["raw_path"].decode().removeprefix("/items/"),
            "query": parse_qsl(request.url.query, keep_blank_values=True),
            "header": request.headers.get("x-p"),
            "cookie": request.headers.get("cookie"),
        }
    )


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served(Starlette(routes=[Route("/items/{rest:path}", _received)])) as base:
        yield base


def _spec(parameter: dict[str, Any]) -> dict[str, Any]:
    """One operation taking `parameter` (an array or an object, whatever its style)."""
    path = "/items/{p}" if parameter["in"] == "path" else "/items/"
    declared = {"schema": {"type": ["array", "object", "boolean"]}, "required": True, **parameter}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Styles", "version": "1"},
        "paths": {path: {"get": {"operationId": "op", "parameters": [declared]}}},
    }


async def _sent(url: str, parameter: dict[str, Any], value: Any) -> Any:
    """Where `parameter` goes, as the app received it when the tool was called with `value`."""
    async with connect(RemoteServer.openapi(_spec(parameter), base_url=url)) as client:
        result = await client.call_tool("op", {parameter["name"]: value})
    assert not result.is_error, result.content
    where = {"path": "path", "query": "query", "header": "header", "cookie": "cookie"}[parameter["in"]]
    return json.loads(result.content[0].text)[where]


LIST = [1, 2]
OBJECT = {"x": 1, "y": 2}


def _path(**style: Any) -> dict[str, Any]:
    return {"name": "p", "in": "path", **style}


def _query(name: str, **style: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", **style}


@pytest.mark.parametrize(
    ("parameter", "value", "received"),
    [
        (_path(), LIST, "1,2"),
        (_path(), OBJECT, "x,1,y,2"),
        (_path(explode=True), OBJECT, "x=1,y=2"),
        (_path(style="label"), LIST, ".1,2"),
        (_path(style="label", explode=True), LIST, ".1.2"),
        (_path(style="matrix"), LIST, ";p=1,2"),
        (_path(style="matrix", explode=True), OBJECT, ";x=1;y=2"),
        (_path(), {"a b": "c/d"}, "a%20b,c%2Fd"),
        (_path(), True, "true"),
    ],
)
async def test_a_path_argument_is_written_as_its_style_says(
    url: str, parameter: dict[str, Any], value: Any, received: str
) -> None:
    assert await _sent(url, parameter, value) == received


@pytest.mark.parametrize(
    ("parameter", "value", "received"),
    [
        (_query("ids"), LIST, [["ids", "1"], ["ids", "2"]]),
        (_query("point"), OBJECT, [["x", "1"], ["y", "2"]]),
        (_query("ids", explode=False), LIST, [["ids", "1,2"]]),
        (_query("point", explode=False), OBJECT, [["point", "x,1,y,2"]]),
        (_query("ids", style="spaceDelimited", explode=False), LIST, [["ids", "1 2"]]),
        (_query("ids", style="pipeDelimited", explode=False), LIST, [["ids", "1|2"]]),
        (_query("filter", style="deepObject", explode=True), {"status": "open"}, [["filter[status]", "open"]]),
        (_query("flag"), True, [["flag", "true"]]),
    ],
)
async def test_a_query_argument_is_written_as_its_style_says(
    url: str, parameter: dict[str, Any], value: Any, received: list[list[str]]
) -> None:
    assert await _sent(url, parameter, value) == received


@pytest.mark.parametrize(
    ("parameter", "value", "received"),
    [
        ({"name": "X-P", "in": "header"}, [3, 4], "3,4"),
        ({"name": "X-P", "in": "header"}, {"k": "v"}, "k,v"),
        ({"name": "X-P", "in": "header", "explode": True}, {"k": "v"}, "k=v"),
        ({"name": "ids", "in": "cookie", "explode": False}, LIST, "ids=1,2"),
        ({"name": "ids", "in": "cookie"}, LIST, "ids=1; ids=2"),
        ({"name": "point", "in": "cookie", "explode": False}, OBJECT, "point=x,1,y,2"),
    ],
)
async def test_a_header_or_cookie_argument_is_written_as_its_style_says(
    url: str, parameter: dict[str, Any], value: Any, received: str
) -> None:
    assert await _sent(url, parameter, value) == received


async def test_a_style_not_allowed_where_it_is_is_said_once_and_the_default_used(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "toolweave.openapi"):
        received = await _sent(url, _path(style="deepObject"), LIST)
    assert received == "1,2"
    assert [record.getMessage() for record in caplog.records] == [
        "the spec dict: paths./items/{p}.get.parameters[0]: the style 'deepObject' is not one OpenAPI allows "
        "in the path (simple, label, matrix): 'simple' is used"
    ]
