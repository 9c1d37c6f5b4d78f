"""A spec schema keyword whose value JSON Schema cannot apply is refused when the server is built,
naming the operation and the keyword: the tool was listed, and every call of it failed as an
internal error (`Internal error (incident ...)`), the API never reached."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.serving import serving
from toolweave import RemoteServer
from toolweave.core.schema_shapes import shape_problem
from toolweave.openapi import SpecError
from toolweave.testing import connect


def _spec(schema: dict[str, Any], version: str = "3.0.3") -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": schema}}}
    operation = {"operationId": "add", "requestBody": body}
    return {"openapi": version, "info": {"title": "Notes", "version": "1"}, "paths": {"/notes": {"post": operation}}}


SWAGGER_HABIT = {"type": "object", "properties": {"text": {"type": "string", "required": True}}}


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        (SWAGGER_HABIT, "properties.text.required is True: JSON Schema's 'required' is a list of property names"),
        ({"type": "object", "required": True, "properties": {"a": {"type": "string"}}}, "required is True"),
        ({"type": "object", "properties": {"f": {"type": "file"}}}, "`type: string, format: binary`"),
        ({"type": "object", "properties": {"n": {"type": "int"}}}, "properties.n.type is 'int': a JSON Schema type"),
        ({"type": "object", "properties": {"s": {"type": "string", "maxLength": "9"}}}, "properties.s.maxLength"),
        ({"type": "object", "properties": {"t": {"type": "array", "items": [{}]}}}, "`prefixItems`"),
        ({"type": "object", "properties": {"p": {"type": "string", "pattern": "(a"}}}, "properties.p.pattern is '(a'"),
    ],
)
def test_a_keyword_json_schema_cannot_apply_fails_the_build_saying_where(schema: dict[str, Any], said: str) -> None:
    with pytest.raises(SpecError) as raised:
        RemoteServer.openapi(_spec(schema), base_url="http://127.0.0.1:9")
    message = str(raised.value)
    assert message.startswith("the spec dict: paths./notes.post.requestBody.content.application/json.schema: ")
    assert said in message


def test_a_keyword_in_a_schema_kept_under_defs_is_named_there() -> None:
    node = {
        "type": "object",
        "properties": {"n": {"type": "int"}, "kids": {"items": {"$ref": "#/components/schemas/Node"}}},
    }
    spec = {**_spec({"$ref": "#/components/schemas/Node"}), "components": {"schemas": {"Node": node}}}
    with pytest.raises(SpecError, match=r"schema: \$defs\.Node\.properties\.n\.type is 'int'"):
        RemoteServer.openapi(spec, base_url="http://127.0.0.1:9")


async def test_a_3_0_boolean_bound_in_a_3_1_spec_is_read_as_3_0_meant_it() -> None:
    """`exclusiveMinimum: true` beside `minimum` is only 3.0's form: in a 3.1 spec it was left a
    boolean, which JSON Schema compares as the number 1."""
    count = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}}}

    async def echo(request: Request) -> JSONResponse:
        return JSONResponse(await request.json())

    async with (
        serving(Starlette(routes=[Route("/notes", echo, methods=["POST"])])) as url,
        connect(RemoteServer.openapi(_spec(count, "3.1.0"), base_url=url)) as client,
    ):
        (tool,) = (await client.list_tools()).tools
        one = await client.call_tool("add", {"n": 1})
        zero = await client.call_tool("add", {"n": 0})
    assert tool.input_schema["properties"]["n"] == {"type": "integer", "exclusiveMinimum": 0}
    assert one.structured_content is None and one.content[0].text == '{"n":1}'
    assert zero.is_error


@pytest.mark.parametrize(
    "schema",
    [
        {"type": ["string", "null"], "maxLength": 10, "pattern": r"^\p{L}+$"},
        {"enum": [{"type": "file", "required": True}], "default": {"type": "int"}},  # data, not schemas
        {"type": "object", "x-vendor": {"type": "int"}, "additionalProperties": False},  # unknown keywords: left
    ],
)
def test_what_json_schema_can_apply_is_no_problem(schema: dict[str, Any]) -> None:
    assert shape_problem(schema) is None
