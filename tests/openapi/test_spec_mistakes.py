"""Specs with mistakes, refused when the server is built with the document, where in it (a JSON
path such as `paths./a.get.parameters[0]`) and what is wrong: before, most were read into no
tool, or a tool that asks for an argument its request drops, without a word."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.serving import served, serving
from toolweave import RemoteServer
from toolweave.openapi import Routes, SpecError
from toolweave.testing import connect

BASE = "http://127.0.0.1:9"


def _spec(paths: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "Mistakes", "version": "1"}, "paths": paths, **fields}


def _refused(spec: dict[str, Any], **options: Any) -> str:
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(spec, **{"base_url": BASE, **options})
    return str(caught.value)


def _names(spec: dict[str, Any], **options: Any) -> list[str]:
    return [tool.name for tool in RemoteServer.openapi(spec, base_url=BASE, **options).catalog.tools]


QUERY = {"name": "q", "in": "query", "schema": {"type": "string"}}


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        ({"/a": {"get": "oops"}}, "paths./a.get: an operation is a mapping, not str"),
        ({"/a": {"get": None}}, "paths./a.get: an operation is a mapping, not null"),
        ({"/a": {"GET": {}}}, "paths./a.GET: methods are written in lowercase ('get')"),
        (
            {"/a": {"parameter": [QUERY], "get": {}}},
            "paths./a.parameter: not a field of a path item (a lowercase method such as 'get', one of $ref, "
            "description, parameters, servers, summary, or an 'x-' extension)",
        ),
        ({"/a": {"get": {"tags": "pets"}}}, "paths./a.get.tags: a list of tag names, not str"),
        (
            {"/a": {"get": {"tags": [{"name": "pets"}]}}},
            "paths./a.get.tags: a list of tag names, not a list holding a dict",
        ),
        ({"/a": {"get": {"parameters": QUERY}}}, "paths./a.get.parameters: a list of parameters, not dict"),
        ({"/a": {"parameters": 3, "get": {}}}, "paths./a.parameters: a list of parameters, not int"),
        (
            {"/a": {"get": {"parameters": ["q"]}}},
            "paths./a.get.parameters[0]: a parameter is a mapping with a 'name' and 'in', not str",
        ),
        (
            {"/a": {"get": {"parameters": [QUERY, {"in": "query"}]}}},
            "paths./a.get.parameters[1]: a parameter needs a 'name' (a string)",
        ),
        (
            {"/a": {"get": {"parameters": [{"name": "q"}]}}},
            "paths./a.get.parameters[0]: the parameter 'q' needs 'in': one of path, query, header, cookie",
        ),
        (
            {"/a": {"post": {"parameters": [{"name": "pet", "in": "body"}]}}},
            "paths./a.post.parameters[0]: the parameter 'pet' needs 'in': one of path, query, header, cookie, "
            "not 'body' (a body is the operation's 'requestBody' in OpenAPI 3)",
        ),
        (
            {"/a": {"post": {"requestBody": {"required": True}}}},
            "paths./a.post.requestBody: a request body needs 'content', a mapping of media types "
            "(application/json, ...) to their schema",
        ),
        (
            {"/a": {"post": {"requestBody": "pet"}}},
            "paths./a.post.requestBody: a request body is a mapping with 'content', not str",
        ),
        (
            {"/a": {"post": {"requestBody": {"content": {"application/json": "Pet"}}}}},
            "paths./a.post.requestBody.content.application/json: a media type object (with a 'schema'), not str",
        ),
        (
            {"/a": {"get": {"responses": ["200"]}}},
            "paths./a.get.responses: a mapping of status codes to responses, not list",
        ),
        ({"/a": {"get": {"responses": {"200": "ok"}}}}, "paths./a.get.responses.200: a response is a mapping, not str"),
        ({"pets": {"get": {}}}, "paths.pets.get: a path starts with '/' (write '/pets')"),  # (`/v1pets` was called)
    ],
)
def test_a_malformed_operation_is_refused_naming_where_and_what(paths: dict[str, Any], message: str) -> None:
    """`get: "oops"`, parameters that are no list, a parameter without `name`: the operation was
    left out (so the server had no tools, and only "defines no tools" was said) or failed with
    Python's words (`'str' object has no attribute 'get'`)."""
    assert _refused(_spec(paths)) == f"the spec dict: {message}"


def test_a_path_parameter_missing_from_the_path_template_is_refused() -> None:
    """`PUT /a` declaring `id` in the path: the tool required an `id` that no request carried."""
    put = {"put": {"parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]}}
    assert _refused(_spec({"/a": put})) == (
        "the spec dict: paths./a.put.parameters[0]: the path parameter 'id' is not in the path '/a' "
        "(write {id} in the path, or make it another kind of parameter)"
    )
    shared = {"parameters": [{"name": "id", "in": "path", "required": True}], "get": {}}
    assert _refused(_spec({"/a/{key}": {**shared, "get": {"parameters": [{"name": "key", "in": "path"}]}}})) == (
        "the spec dict: paths./a/{key}.parameters[0]: the path parameter 'id' is not in the path '/a/{key}' "
        "(write {id} in the path, or make it another kind of parameter)"
    )


@pytest.mark.parametrize(
    ("operation", "message"),
    [
        (
            {"parameters": [{"$ref": "#/components/parameters/Limit"}]},
            "paths./a.post.parameters[0]: the reference '#/components/parameters/Limit' points to nothing",
        ),
        (
            {"parameters": [{"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/Q"}}]},
            "paths./a.post.parameters[0].schema: the reference '#/components/schemas/Q' points to nothing",
        ),
        (
            {
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"owner": {"$ref": "#/components/schemas/Owner"}},
                            }
                        }
                    }
                }
            },
            "paths./a.post.requestBody.content.application/json.schema: "
            "the reference '#/components/schemas/Owner' points to nothing",
        ),
        (
            {"responses": {"200": {"$ref": "#/components/responses/Ok"}}},
            "paths./a.post.responses.200: the reference '#/components/responses/Ok' points to nothing",
        ),
    ],
)
def test_a_reference_that_points_nowhere_is_named_where_it_is_used(operation: dict[str, Any], message: str) -> None:
    """The message named the reference but not the operation using it."""
    assert _refused(_spec({"/a": {"post": operation}})) == f"the spec dict: {message}"


@pytest.mark.parametrize(
    ("ref", "stop"),
    [
        ("#/info/title/X", "'title' is a string, it has no 'X'"),
        ("#/info/title/0", "'title' is a string, it has no '0'"),
        ("#/info/version/major", "'version' is a number, it has no 'major'"),
        ("#/info/tags/first", "'tags' is a list of 1, it has no 'first'"),
        ("#/info/tags/3", "'tags' is a list of 1, it has no '3'"),
        ("#/info/license/name", "'license' is null, it has no 'name'"),
    ],
)
def test_a_reference_that_walks_into_a_value_says_where_it_stops(ref: str, stop: str) -> None:
    """It was `paths./a.get: cannot be read (invalid literal for int() with base 10: 'X')`, or
    (a digit into a string) the reference went on to one character of it."""
    spec = _spec({"/a": {"get": {"parameters": [{"$ref": ref}]}}})
    spec["info"] = {"title": "Mistakes", "version": 1, "tags": ["a"], "license": None}
    assert (
        _refused(spec) == f"the spec dict: paths./a.get.parameters[0]: the reference {ref!r} points to nothing: {stop}"
    )


def test_a_reference_into_another_file_says_where_it_stops(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("info: {title: Common}\nPet: {type: object}\n")
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "common.yaml#/Pet"}}}}}
    bad = {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "common.yaml#/info/title/X"}}}}
    }
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(_spec({"/ok": {"get": {"responses": ok}}, "/a": {"get": {"responses": bad}}})))
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(str(spec), base_url=BASE)
    assert str(caught.value) == (
        f"{spec}: paths./a.get.responses.200.content.application/json.schema: the reference "
        "'common.yaml#/info/title/X' points to nothing: 'title' is a string, it has no 'X'"
    )


def test_an_excluded_operation_is_not_read_so_a_route_skips_a_broken_one() -> None:
    broken = {"get": {"operationId": "broken", "parameters": [{"name": "q"}]}}
    spec = _spec({"/fine": {"get": {"operationId": "fine"}}, "/broken": broken})
    assert _names(spec, exclude=Routes(paths=["/broken"])) == ["fine"]
    assert "paths./broken.get.parameters[0]" in _refused(spec)


def test_extensions_are_not_paths_and_openapi_3_2_operations_are_left_out_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    spec = _spec({"x-generated": "by hand", "/a": {"x-owner": "me", "get": {"operationId": "a"}, "query": {}}})
    with caplog.at_level(logging.WARNING, logger="toolweave.openapi"):
        assert _names(spec) == ["a"]
    assert caplog.messages == ["the spec dict: paths./a.query: not read (OpenAPI 3.2 operations are not tools yet)"]


def test_an_operation_with_servers_of_its_own_is_kept_with_a_warning_that_they_are_not_used(
    caplog: pytest.LogCaptureFixture,
) -> None:
    uploads = {"servers": [{"url": "https://uploads.example.test"}], "post": {"operationId": "upload"}}
    spec = _spec({"/files": uploads, "/a": {"get": {"operationId": "a", "servers": [{"url": "https://a.test"}]}}})
    with caplog.at_level(logging.WARNING, logger="toolweave.openapi"):
        assert _names(spec) == ["upload", "a"]
    assert [message.split(": its own")[0] for message in caplog.messages] == [
        "the spec dict: paths./files.post",
        "the spec dict: paths./a.get",
    ]
    assert all("are not used" in message for message in caplog.messages)


ROUTED = {
    "/pets": {"get": {"operationId": "list", "tags": ["pets"]}, "post": {"operationId": "add", "tags": ["pets"]}},
    "/pets/{id}": {"get": {"operationId": "one", "tags": ["pets"], "parameters": [{"name": "id", "in": "path"}]}},
    "/misc": {"get": {"operationId": "misc"}},
}


@pytest.mark.parametrize(
    ("options", "warning"),
    [
        ({"include": Routes(tags=["pet"])}, "include route {tags: [pet]} matches no operation (did you mean 'pets'?)"),
        (
            {"include": [Routes(tags=["pets"]), Routes(paths=["/users/**"])]},
            "include route {paths: [/users/**]} matches no operation (its paths are /pets, /pets/{id}, /misc)",
        ),
        (
            {"exclude": Routes(methods=["DELETE", "PATCH"])},
            "exclude route {methods: [DELETE, PATCH]} matches no operation (its methods are GET, POST)",
        ),
        (
            {"exclude": Routes(tags=["admin"], methods=["POST"])},
            "exclude route {tags: [admin], methods: [POST]} matches no operation (its tags are pets)",
        ),
        (
            {"include": Routes(tags=["pets"], paths=["/misc"])},
            "include route {tags: [pets], paths: [/misc]} matches no operation (no operation meets all of it at once)",
        ),
    ],
)
def test_a_route_that_matches_no_operation_is_said_once_naming_it_and_the_api(
    options: dict[str, Any], warning: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A misspelt tag left the API with fewer tools (or none) and not a word, where a tool-name
    glob that matches no tool is warned of."""
    with caplog.at_level(logging.WARNING, logger="toolweave.openapi"):
        RemoteServer.openapi(_spec(ROUTED), base_url=BASE, name="shop", **options)
    assert caplog.messages == [f"API 'shop': {warning}"]


def test_routes_that_match_say_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolweave.openapi"):
        names = _names(_spec(ROUTED), include=Routes(tags=["pets"]), exclude=Routes(methods=["POST"]))
    assert names == ["list", "one"]
    assert caplog.messages == []


def test_a_multipart_body_is_refused_unless_the_operation_takes_another() -> None:
    """A multipart body went out as JSON labelled `multipart/form-data`, with no boundary."""
    upload = {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}
    multipart = {"multipart/form-data": {"schema": upload}}
    assert _refused(_spec({"/a": {"post": {"requestBody": {"content": multipart}}}})) == (
        "the spec dict: paths./a.post.requestBody.content: a multipart/form-data body cannot be sent (a tool "
        "sends JSON, a form, or text as it is); leave the operation out with an exclude route"
    )
    both = {"content": {**multipart, "application/json": {"schema": upload}}}
    tool = RemoteServer.openapi(_spec({"/a": {"post": {"requestBody": both}}}), base_url=BASE).catalog.tools[0]
    assert list(tool.input_schema["properties"]) == ["file"]


def test_a_json_media_type_with_a_charset_is_json() -> None:
    body = {
        "content": {
            "application/json; charset=utf-8": {
                "schema": {"type": "object", "properties": {"name": {"type": "string"}}}
            }
        }
    }
    tool = RemoteServer.openapi(_spec({"/a": {"post": {"requestBody": body}}}), base_url=BASE).catalog.tools[0]
    assert tool.input_schema["properties"] == {"name": {"type": "string"}}


async def test_a_body_sent_as_it_is_is_one_string_argument() -> None:
    """An XML body described as an object was an object argument, sent as JSON text labelled XML."""
    received: list[tuple[str, str]] = []

    async def record(request: Request) -> JSONResponse:
        received.append((request.headers["content-type"], (await request.body()).decode()))
        return JSONResponse({})

    pet = {"type": "object", "description": "A pet.", "properties": {"name": {"type": "string"}}}
    body = {"required": True, "content": {"application/xml": {"schema": pet}}}
    spec = _spec({"/pets": {"post": {"operationId": "add", "requestBody": body}}})
    app = Starlette(routes=[Route("/pets", record, methods=["POST"])])
    server = RemoteServer.openapi(spec, base_url=BASE)
    assert server.catalog.tools[0].input_schema == {
        "type": "object",
        "properties": {
            "body": {"type": "string", "description": "A pet.\n\nThe request body, sent as application/xml as it is."}
        },
        "required": ["body"],
    }
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        result = await client.call_tool("add", {"body": "<pet><name>Rex</name></pet>"})
    assert not result.is_error, result.content
    assert received == [("application/xml", "<pet><name>Rex</name></pet>")]


async def test_a_body_of_any_media_type_is_sent_as_json() -> None:
    """`*/*` (how some generators write every body) made an object body one string argument,
    sent with `Content-Type: */*`, which APIs refuse."""
    received: list[tuple[str, str]] = []

    async def record(request: Request) -> JSONResponse:
        received.append((request.headers["content-type"], (await request.body()).decode()))
        return JSONResponse({})

    pet = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    body = {"required": True, "content": {"*/*": {"schema": pet}}}
    spec = _spec({"/pets": {"post": {"operationId": "add", "requestBody": body}}})
    app = Starlette(routes=[Route("/pets", record, methods=["POST"])])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        listed = (await client.list_tools()).tools[0]
        result = await client.call_tool("add", {"name": "Rex"})
    assert listed.input_schema["properties"] == {"name": {"type": "string"}}
    assert not result.is_error, result.content
    assert received == [("application/json", '{"name":"Rex"}')]


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        (
            [{"url": "/"}],
            "servers[0].url '/' is relative: it is taken against the spec's URL, and this spec was not read "
            "from one (give base_url, the API's http(s):// address)",
        ),
        (
            [{"url": "ftp://files.example/"}],
            "servers[0].url 'ftp://files.example/' is not an http(s) URL (give base_url, the API's http(s):// address)",
        ),
    ],
)
def test_a_server_url_that_is_no_api_address_is_named_for_what_it_is(servers: Any, message: str) -> None:
    """A relative server URL was reported as "the spec lists no 'servers'"."""
    spec = _spec({"/a": {"get": {}}}, servers=servers)
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(spec)
    assert str(caught.value) == f"the spec dict: no base_url given, and {message}"


@pytest.mark.parametrize(
    ("server", "message"),
    [
        ({"url": "http://{host}/", "variables": {"host": {}}}, "servers[0].variables.host needs a 'default'"),
        (
            {"url": "http://{host}:{port}/", "variables": {"host": {"default": "h"}}},
            "servers[0].url has {port}, which servers[0].variables does not define",
        ),
    ],
)
def test_a_server_variable_without_a_value_is_refused(server: Any, message: str) -> None:
    """`http://{host}/` was taken as the API's address, literally."""
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(_spec({}, servers=[server]))
    assert str(caught.value) == f"the spec dict: {message}"


async def test_a_relative_server_url_is_taken_against_the_spec_url() -> None:
    """OpenAPI 3: a relative server URL is relative to where the document is served (`v1` too,
    not only `/v1`)."""
    spec = _spec({"/pets": {"get": {"operationId": "pets"}}}, servers=[{"url": "v1"}])

    async def document(request: Request) -> JSONResponse:
        return JSONResponse(spec)

    async def pets(request: Request) -> JSONResponse:
        return JSONResponse({"path": request.url.path})

    app = Starlette(routes=[Route("/api/openapi.json", document), Route("/api/v1/pets", pets)])
    with served(app) as url:
        api = RemoteServer.openapi(f"{url}/api/openapi.json")
        assert api.base_url == f"{url}/api/v1"
        async with connect(api) as client:
            result = await client.call_tool("pets", {})
    assert result.content[0].text == '{"path":"/api/v1/pets"}'
