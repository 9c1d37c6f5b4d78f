"""Arguments that would change the request an OpenAPI tool sends, and 2xx answers that are not what
the spec promises: each refused or reported with a message naming it, against a real app on 127.0.0.1."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.serving import served, serving
from toolweave import RemoteServer
from toolweave.openapi import SpecError
from toolweave.openapi import spec as spec_module
from toolweave.openapi.spec import load_spec
from toolweave.testing import connect

OBJECT = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
JSON_200 = {"200": {"description": "ok", "content": {"application/json": {"schema": OBJECT}}}}


def _spec(paths: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "Probe", "version": "1"}, "paths": paths}


def _path_param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


async def _record(request: Request) -> JSONResponse:
    return JSONResponse({"path": request.scope["raw_path"].decode(), "trace": request.headers.get("x-trace")})


async def test_an_empty_path_argument_is_refused_before_it_changes_the_path() -> None:
    """`/{tenant}/things` with `""` would be `//things` (a host to URL parsers), `/items/{id}/detail`
    would be `/items//detail`: neither is the operation's path."""
    spec = _spec(
        {
            "/{tenant}/things": {"get": {"operationId": "things", "parameters": [_path_param("tenant")]}},
            "/items/{id}/detail": {"get": {"operationId": "item", "parameters": [_path_param("id")]}},
        }
    )
    app = Starlette(routes=[Route("/{rest:path}", _record)])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=f"{url}/api")) as client:
        things = await client.call_tool("things", {"tenant": ""})
        item = await client.call_tool("item", {"id": ""})
        fine = await client.call_tool("item", {"id": "a"})
    assert things.is_error and item.is_error
    assert things.content[0].text == "argument 'tenant' cannot be empty: it is a segment of the request path"
    assert item.content[0].text == "argument 'id' cannot be empty: it is a segment of the request path"
    assert fine.content[0].text == '{"path":"/api/items/a/detail","trace":null}'


async def test_header_arguments_beyond_ascii_are_sent_and_control_characters_refused() -> None:
    spec = _spec(
        {
            "/echo": {
                "get": {
                    "operationId": "echo",
                    "parameters": [{"name": "X-Trace", "in": "header", "schema": {"type": "string"}}],
                }
            }
        }
    )
    app = Starlette(routes=[Route("/echo", _record)])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        accented = await client.call_tool("echo", {"X-Trace": "café"})
        nul = await client.call_tool("echo", {"X-Trace": "a\x00b"})
        escape = await client.call_tool("echo", {"X-Trace": "a\x1bb"})
    assert not accented.is_error
    assert accented.structured_content is None
    assert "café".encode().decode("latin-1") in accented.content[0].text  # UTF-8 bytes on the wire
    for result in (nul, escape):
        assert result.is_error
        assert result.content[0].text == (
            "argument 'X-Trace' cannot hold a control character: it is sent as an HTTP header"
        )


async def test_a_2xx_answer_that_is_not_the_json_the_spec_describes_is_a_clear_error() -> None:
    """A login page, an empty body or a JSON array where the spec promises an object: the client
    reads what the API answered, not a masked internal error."""

    def answer(body: str, media: str | None) -> Any:
        async def handler(request: Request) -> Response:
            return Response(body, media_type=media)

        return handler

    answers = {
        "/html": ("<html>login</html>", "text/html"),
        "/empty": ("", "application/json"),
        "/list": ("[1]", "application/json"),
    }
    spec = _spec({path: {"get": {"operationId": path[1:], "responses": JSON_200}} for path in answers})
    app = Starlette(routes=[Route(path, answer(*reply)) for path, reply in answers.items()])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        texts = {name: await client.call_tool(name, {}) for name in ("html", "empty", "list")}
    assert all(result.is_error for result in texts.values())
    assert texts["html"].content[0].text == "API 'Probe': GET /html answered text/html, not the JSON its spec describes"
    assert texts["empty"].content[0].text == (
        "API 'Probe': GET /empty answered HTTP 200 with no body, not the JSON its spec describes"
    )
    assert texts["list"].content[0].text == (
        "API 'Probe': GET /list answered a JSON list, not the object its spec describes"
    )


async def test_an_answer_that_is_text_outside_text_slash_is_text_for_the_model() -> None:
    """NDJSON, an Atom feed or a vendor type with a charset reached the model as a base64 blob."""
    answers = {
        "/lines": ('{"a":1}\n{"a":2}\n', "application/x-ndjson"),
        "/feed": ("<feed/>", "application/atom+xml"),
        "/report": ("total: 3", "application/vnd.acme.report; charset=utf-8"),
        "/file": ("\x00\x01", "application/octet-stream"),
    }

    def answer(body: str, media: str) -> Any:
        async def handler(request: Request) -> Response:
            return Response(body, headers={"content-type": media})

        return handler

    spec = _spec({path: {"get": {"operationId": path[1:]}} for path in answers})
    app = Starlette(routes=[Route(path, answer(*reply)) for path, reply in answers.items()])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        results = {name: await client.call_tool(name, {}) for name in ("lines", "feed", "report", "file")}
    assert [results[name].content[0].text for name in ("lines", "feed", "report")] == [
        '{"a":1}\n{"a":2}\n',
        "<feed/>",
        "total: 3",
    ]
    assert results["file"].content[0].resource.blob == "AAE="


async def test_an_operation_that_may_answer_204_has_no_output_schema_and_both_answers_work() -> None:
    async def maybe(request: Request) -> Response:
        if request.query_params.get("empty"):
            return Response(status_code=204)
        return JSONResponse({"a": 1})

    responses = {**JSON_200, "204": {"description": "nothing to say"}}
    spec = _spec(
        {
            "/maybe": {
                "get": {
                    "operationId": "maybe",
                    "responses": responses,
                    "parameters": [{"name": "empty", "in": "query", "schema": {"type": "string"}}],
                }
            }
        }
    )
    app = Starlette(routes=[Route("/maybe", maybe)])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        tool = (await client.list_tools()).tools[0]
        full = await client.call_tool("maybe", {})
        empty = await client.call_tool("maybe", {"empty": "1"})
    assert tool.output_schema is None
    assert not full.is_error and full.content[0].text == '{"a":1}'
    assert not empty.is_error and empty.content == []


async def test_an_answer_without_a_body_says_where_its_location_points() -> None:
    """A `201 Created` or `202 Accepted` without a body names what it made in its `Location`: the
    result was empty, so a model that made a resource could not name it afterwards. The
    `Location` is scrubbed of the call's credentials (the base URL's `?key=`) like a body."""

    async def create(request: Request) -> Response:
        key = request.query_params["key"]
        if request.query_params.get("later"):
            return Response(status_code=202, headers={"location": f"/jobs/7?by={key}"})
        return Response(status_code=201, headers={"location": "/notes/42"})

    later = {"name": "later", "in": "query", "schema": {"type": "string"}}
    made = {"201": {"description": "made"}, "202": {"description": "queued"}}
    spec = _spec({"/notes": {"post": {"operationId": "add_note", "parameters": [later], "responses": made}}})
    app = Starlette(routes=[Route("/notes", create, methods=["POST"])])
    async with (
        serving(app) as url,
        connect(RemoteServer.openapi(spec, base_url=f"{url}?key=k-0123456789")) as client,
    ):
        created = await client.call_tool("add_note", {})
        queued = await client.call_tool("add_note", {"later": "1"})
    assert not created.is_error and not queued.is_error
    assert [block.text for block in created.content] == ["HTTP 201 Created; Location: /notes/42"]
    assert [block.text for block in queued.content] == ["HTTP 202 Accepted; Location: /jobs/7?by=[redacted]"]


async def test_accept_content_type_and_authorization_header_parameters_are_no_arguments(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """OpenAPI 3: header parameters of these names SHALL be ignored. As arguments, `Content-Type`
    replaced the JSON body's type and `Authorization` asked the model for a credential."""
    received: list[dict[str, str | None]] = []

    async def record(request: Request) -> JSONResponse:
        received.append({name: request.headers.get(name) for name in ("content-type", "authorization", "x-trace")})
        return JSONResponse({})

    def header(name: str) -> dict[str, Any]:
        return {"name": name, "in": "header", "schema": {"type": "string"}}

    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}
    parameters = [header("Content-Type"), header("accept"), header("AUTHORIZATION"), header("X-Trace")]
    spec = _spec({"/things": {"post": {"operationId": "add", "requestBody": body, "parameters": parameters}}})
    app = Starlette(routes=[Route("/things", record, methods=["POST"])])
    async with serving(app) as url:
        with caplog.at_level(logging.WARNING, "toolweave.openapi"):
            api = RemoteServer.openapi(spec, base_url=url)
        async with connect(api) as client:
            sent = await client.call_tool("add", {"n": 1, "X-Trace": "t-1"})
            typed = await client.call_tool("add", {"n": 1, "Content-Type": "text/plain"})
    assert list(api.catalog.tools[0].input_schema["properties"]) == ["X-Trace", "n"]
    assert not sent.is_error, sent.content
    assert received == [{"content-type": "application/json", "authorization": None, "x-trace": "t-1"}]
    assert typed.is_error and typed.content[0].text.endswith("- Content-Type: unexpected argument")
    assert [record.getMessage() for record in caplog.records] == [
        "the spec dict: paths./things.post: the header parameter(s) Content-Type, accept, AUTHORIZATION are "
        "ignored, as OpenAPI 3 says (the media types and the security schemes set them): they are no arguments "
        "of the tool"
    ]


@pytest.mark.parametrize(
    ("streamed", "said"),
    [(False, "more characters, of a 100000-byte answer"), (True, "more characters")],
    ids=["content-length", "chunked"],
)
async def test_an_error_body_longer_than_what_is_read_is_not_given_a_wrong_count(streamed: bool, said: str) -> None:
    """Only 64 KiB of an error answer is read: `… (65036 more characters)` was said of a
    100,000-character body. Its `Content-Length`, when it has one, says how long it is."""
    text = "x" * 100_000

    async def huge(request: Request) -> Response:
        if streamed:
            return StreamingResponse(iter([text]), status_code=500, media_type="text/plain")
        return PlainTextResponse(text, status_code=500)

    spec = _spec({"/huge": {"get": {"operationId": "huge"}}})
    app = Starlette(routes=[Route("/huge", huge)])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        result = await client.call_tool("huge", {})
    assert result.is_error
    assert result.content[0].text == (
        f"API 'Probe': GET /huge answered HTTP 500 Internal Server Error: {'x' * 500}… ({said})"
    )


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        (
            [],
            "the spec dict: no base_url given, and the spec lists no 'servers' and was not read from a URL "
            "(give base_url, the API's http(s):// address)",
        ),
        ({"a": 1}, "the spec dict: 'servers' is a list of servers (each with a 'url'), not dict"),
        (["http://api.example"], "the spec dict: servers[0] is a mapping with a 'url', not str"),
        ([{"url": 5}], "the spec dict: servers[0] needs a string 'url' and a mapping of 'variables'"),
        (
            [{"url": "http://{host}/", "variables": {"host": "x"}}],
            "the spec dict: servers[0].variables.host is not a mapping (with a 'default')",
        ),
    ],
)
def test_malformed_servers_are_a_spec_error_naming_them(servers: Any, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi({**_spec({}), "servers": servers})
    assert str(caught.value) == message


def test_a_path_template_variable_with_no_parameter_is_a_spec_error() -> None:
    """Else the tool had no argument for it and every call failed with a masked KeyError."""
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(_spec({"/a/{b}": {"get": {"operationId": "x"}}}), base_url="http://127.0.0.1:9")
    assert (
        str(caught.value)
        == "the spec dict: paths./a/{b}.get: the path names {b}, which no 'in: path' parameter declares"
    )


async def _dripping_spec(scope: Any, receive: Any, send: Any) -> None:
    """A spec served one byte every 0.2 s: each read is quick, the whole takes 2 s."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    for _ in range(10):
        await send({"type": "http.response.body", "body": b" ", "more_body": True})
        await anyio.sleep(0.2)
    await send({"type": "http.response.body", "body": json.dumps(_spec({})).encode()})


def test_a_spec_url_that_drips_is_given_up_at_the_fetch_timeout_in_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """The timeout bounded each read only: a server sending a byte now and then held the load
    (startup, or a live reload) for as long as it liked."""
    monkeypatch.setattr(spec_module, "_FETCH_TIMEOUT", 0.5)
    with served(_dripping_spec) as url, pytest.raises(SpecError) as caught:
        load_spec(f"{url}/openapi.json")
    assert str(caught.value) == f"cannot fetch the OpenAPI spec '{url}/openapi.json': it took over 0.5 s"


def test_a_spec_url_answering_more_than_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_module, "_FETCH_BYTES", 1000)

    async def huge(request: Request) -> Response:
        return Response(" " * 5000 + json.dumps(_spec({})), media_type="application/json")

    with served(Starlette(routes=[Route("/openapi.json", huge)])) as url, pytest.raises(SpecError) as caught:
        load_spec(f"{url}/openapi.json")
    assert str(caught.value) == f"cannot fetch the OpenAPI spec '{url}/openapi.json': larger than 1000 bytes"
    monkeypatch.setattr(spec_module, "_FETCH_BYTES", 10_000)
    with served(Starlette(routes=[Route("/openapi.json", huge)])) as url:
        assert load_spec(f"{url}/openapi.json").document["info"]["title"] == "Probe"


async def test_an_answer_that_trickles_in_is_cut_at_the_timeout() -> None:
    """httpx's timeout bounds each read: an API sending a byte every 0.3 s held a `timeout=0.5`
    call for as long as it kept sending."""

    async def drip(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        for _ in range(20):
            await send({"type": "http.response.body", "body": b"x", "more_body": True})
            await anyio.sleep(0.3)
        await send({"type": "http.response.body", "body": b"done"})

    spec = _spec({"/drip": {"get": {"operationId": "drip"}}})
    async with serving(drip) as url, connect(RemoteServer.openapi(spec, base_url=url, timeout=0.5)) as client:
        result = await client.call_tool("drip", {})
    assert result.is_error
    assert result.content[0].text == "API 'Probe': GET /drip timed out"


async def test_a_form_body_is_encoded_as_openapi_says_not_as_python_writes_it() -> None:
    """An object field went out as its Python repr (`meta=%7B%27k%27...`), a null as an empty field."""
    received: list[str] = []

    async def record(request: Request) -> JSONResponse:
        received.append((await request.body()).decode())
        return JSONResponse({})

    properties = {
        "tags": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object"},
        "flag": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
    }
    body = {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": properties}}}}
    spec = _spec({"/form": {"post": {"operationId": "form", "requestBody": body}}})
    app = Starlette(routes=[Route("/form", record, methods=["POST"])])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        sent = {"tags": ["a", "b"], "meta": {"k": "v", "deep": {"x": 1}}, "flag": True, "note": None}
        result = await client.call_tool("form", sent)
    assert not result.is_error, result.content
    assert received == ["tags=a&tags=b&k=v&deep=%7B%22x%22%3A1%7D&flag=true"]


async def test_a_form_body_that_is_not_an_object_is_its_encoded_text_sent_with_its_media_type() -> None:
    """A form described as a string went out with no `Content-Type` (the API read no field); one
    described as an array, or an array a `oneOf` let through, failed with an internal error."""
    received: list[tuple[str | None, str]] = []

    async def record(request: Request) -> JSONResponse:
        received.append((request.headers.get("content-type"), (await request.body()).decode()))
        return JSONResponse({})

    def form(name: str, schema: dict[str, Any]) -> dict[str, Any]:
        body = {"content": {"application/x-www-form-urlencoded": {"schema": schema}}}
        return {"post": {"operationId": name, "requestBody": body}}

    either = {"oneOf": [{"type": "object"}, {"type": "array"}, {"type": "string"}]}
    spec = _spec(
        {"/t": form("text", {"type": "string"}), "/l": form("listed", {"type": "array"}), "/e": form("either", either)}
    )
    server = RemoteServer.openapi(spec, base_url="http://127.0.0.1:9")
    listed = next(tool for tool in server.catalog.tools if tool.name == "listed")
    assert listed.input_schema["properties"]["body"] == {
        "type": "string",
        "description": "The request body, sent as application/x-www-form-urlencoded as it is.",
    }
    app = Starlette(routes=[Route("/{rest:path}", record, methods=["POST"])])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        sent = [
            await client.call_tool(name, {"body": body})
            for name, body in [("text", "a=1&b=2"), ("listed", "c=3"), ("either", "d=4"), ("either", {"e": 5})]
        ]
        wrong = await client.call_tool("either", {"body": ["f"]})
    assert not any(result.is_error for result in sent)
    assert received == [("application/x-www-form-urlencoded", body) for body in ("a=1&b=2", "c=3", "d=4", "e=5")]
    assert wrong.is_error
    assert wrong.content[0].text == (
        "argument 'body' is sent as a form (application/x-www-form-urlencoded): give its fields as an object, "
        "or the form's encoded text (a=1&b=2), not list"
    )


async def test_a_null_argument_is_not_sent_as_the_text_none() -> None:
    """A nullable header went out as `X-Trace: None`, a nullable path segment as `/items/None`."""
    spec = _spec(
        {
            "/items/{id}": {
                "get": {
                    "operationId": "item",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": ["string", "null"]}},
                        {"name": "X-Trace", "in": "header", "schema": {"type": ["string", "null"]}},
                    ],
                }
            }
        }
    )
    app = Starlette(routes=[Route("/items/{rest:path}", _record)])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        header = await client.call_tool("item", {"id": "a", "X-Trace": None})
        path = await client.call_tool("item", {"id": None})
    assert header.content[0].text == '{"path":"/items/a","trace":null}'
    assert path.is_error
    assert path.content[0].text == "argument 'id' cannot be null: it is a segment of the request path"


def _shared_at_every_level(levels: int) -> dict[str, Any]:
    """Schemas where each level's 10 properties all refer to the level below: 10**levels nodes inlined."""
    schemas: dict[str, Any] = {"l0": {"type": "string"}}
    for level in range(1, levels):
        below = {"$ref": f"#/components/schemas/l{level - 1}"}
        schemas[f"l{level}"] = {"type": "object", "properties": {f"p{n}": below for n in range(10)}}
    return schemas


@pytest.mark.timeout(30)  # inlined, this spec took hours and gigabytes
def test_schemas_shared_at_every_level_are_kept_once_not_inlined_exponentially() -> None:
    import jsonschema

    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/l8"}}}}
    spec = {
        **_spec({"/a": {"post": {"operationId": "a", "requestBody": body}}}),
        "components": {"schemas": _shared_at_every_level(9)},
    }
    tool = RemoteServer.openapi(spec, base_url="http://127.0.0.1:9").catalog.tools[0]
    schema = tool.input_schema
    assert len(json.dumps(schema)) < 1_000_000
    assert schema["$defs"]  # the shared levels, once each
    jsonschema.Draft202012Validator.check_schema(schema)
    leaf: Any = "x"
    for _ in range(7):
        leaf = {f"p{n}": leaf for n in range(2)}
    jsonschema.validate({"p0": leaf}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"p0": {"p0": {"p0": {"p0": {"p0": {"p0": {"p0": {"p0": 5}}}}}}}}, schema)


@pytest.mark.timeout(30)
def test_a_yaml_alias_bomb_is_refused_naming_the_operation(tmp_path: Any) -> None:
    """YAML aliases nest one node everywhere without a `$ref`: 1 KB of spec, 10**9 nodes."""
    lines = ["openapi: 3.1.0", "info: {title: t, version: '1'}", "x-levels:", "  l0: &l0 {type: string}"]
    for level in range(1, 10):
        properties = ", ".join(f"p{n}: *l{level - 1}" for n in range(10))
        lines.append(f"  l{level}: &l{level} {{type: object, properties: {{{properties}}}}}")
    lines += ["paths:", "  /a:", "    post:", "      operationId: a", "      requestBody:"]
    lines += ["        content: {application/json: {schema: *l9}}"]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines))
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(str(path), base_url="http://127.0.0.1:9")
    where = "paths./a.post.requestBody.content.application/json.schema"
    assert str(caught.value) == f"{path}: {where}: a schema is too large to read (over 500000 nodes)"


def test_a_spec_nested_too_deeply_is_a_spec_error_not_a_recursion_error(tmp_path: Any) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"openapi": "3.1.0", "paths": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(SpecError) as caught:
        load_spec(str(path))
    assert str(caught.value) == f"{path}: nested too deeply to read"


async def test_a_json_answer_starting_with_a_byte_order_mark_is_read() -> None:
    """RFC 8259 lets a parser ignore a BOM, and .NET APIs send one: the answer was refused as JSON
    that does not parse, an `UpstreamError` for every call."""

    async def with_bom(request: Request) -> Response:
        return Response(b'\xef\xbb\xbf{"a": 1}', media_type="application/json; charset=utf-8")

    spec = _spec({"/bom": {"get": {"operationId": "bom", "responses": JSON_200}}})
    async with (
        serving(Starlette(routes=[Route("/bom", with_bom)])) as url,
        connect(RemoteServer.openapi(spec, base_url=url)) as client,
    ):
        result = await client.call_tool("bom", {})
    assert not result.is_error, result.content
    assert result.structured_content == {"a": 1}
    assert result.content[0].text == '{"a": 1}'


async def test_a_form_field_is_written_as_its_encoding_says() -> None:
    """Stripe's forms describe `metadata` as `deepObject` (`metadata[order]=6735`): the `encoding`
    was not read, so it went out as `order=6735`, a field the API does not know (or drops)."""
    received: list[str] = []

    async def record(request: Request) -> JSONResponse:
        received.append((await request.body()).decode())
        return JSONResponse({})

    text, tags = {"type": "string"}, {"type": "array", "items": {"type": "string"}}
    fields = {"email": text, "metadata": {"type": "object"}, "tags": tags, "shape": {"type": "object"}}
    form = {
        "schema": {"type": "object", "properties": fields},
        "encoding": {
            "metadata": {"style": "deepObject", "explode": True},
            "tags": {"style": "pipeDelimited", "explode": False},
            "shape": {"contentType": "application/json"},
        },
    }
    body = {"content": {"application/x-www-form-urlencoded": form}}
    spec = _spec({"/v1/customers": {"post": {"operationId": "create_customer", "requestBody": body}}})
    arguments = {"email": "a@b.c", "metadata": {"order": "6735"}, "tags": ["x", "y"], "shape": {"r": 2}}
    async with (
        serving(Starlette(routes=[Route("/v1/customers", record, methods=["POST"])])) as url,
        connect(RemoteServer.openapi(spec, base_url=url)) as client,
    ):
        result = await client.call_tool("create_customer", arguments)
    assert not result.is_error, result.content
    assert received == ["email=a%40b.c&metadata%5Border%5D=6735&tags=x%7Cy&shape=%7B%22r%22%3A2%7D"]
