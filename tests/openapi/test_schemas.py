"""A hand-written spec with `$ref`, `allOf`, `oneOf`, recursion, OpenAPI 3.0's dialect and a
referenced file, read into tool schemas; bad specs refused with where and what."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.serving import served, serving
from toolweave import RemoteServer
from toolweave.openapi import SpecError
from toolweave.testing import connect

SPEC: dict[str, Any] = yaml.safe_load((Path(__file__).parent / "shapes.yaml").read_text())


def tools(spec: Any = SPEC, **options: Any) -> dict[str, Any]:
    server = RemoteServer.openapi(spec, base_url="http://127.0.0.1:9", **options)
    return {tool.name: tool for tool in server.catalog.tools}


def test_a_oneof_body_is_one_argument_with_its_refs_inlined() -> None:
    shape = tools()["add_shape_"]
    body = shape.input_schema["properties"]["body"]
    assert shape.input_schema["required"] == ["body"]
    assert [branch["required"] for branch in body["anyOf"]] == [["kind", "r"], ["kind", "side"]]
    assert body["anyOf"][0]["properties"]["r"] == {"type": "number", "exclusiveMinimum": 0}
    assert "discriminator" not in body


def test_a_referenced_path_level_header_parameter_is_an_argument() -> None:
    shape = tools()["add_shape_"]
    assert shape.input_schema["properties"]["X-Trace"] == {"type": "string", "description": "A trace id."}


def test_a_referenced_response_gives_a_wrapped_output_schema() -> None:
    output = tools()["add_shape_"].output_schema
    assert output["required"] == ["result"]
    assert output["properties"]["result"]["items"]["anyOf"][1]["properties"]["side"] == {"type": "number"}


def test_an_allof_body_is_merged_without_read_only_fields() -> None:
    label = tools()["put_labels_id"]
    assert label.description == "Label a shape\n\nReplaces the label."
    assert set(label.input_schema["properties"]) == {"id", "note", "label"}
    assert label.input_schema["required"] == ["id", "label"]
    assert label.input_schema["properties"]["note"] == {"type": ["string", "null"]}


def test_read_only_fields_stay_in_the_output_schema() -> None:
    output = tools()["put_labels_id"].output_schema
    assert output["allOf"][0]["properties"]["id"]["readOnly"] is True


def test_a_recursive_schema_is_kept_once_under_defs() -> None:
    output = tools()["tree"].output_schema
    assert output["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert output["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    from jsonschema import Draft202012Validator

    Draft202012Validator(output).validate({"name": "a", "children": [{"name": "b", "children": []}]})


def test_a_yaml_file_with_its_base_url_from_the_spec_servers() -> None:
    server = RemoteServer.openapi(str(Path(__file__).parent / "shapes.yaml"))
    assert [tool.name for tool in server.catalog.tools] == ["add_shape_", "put_labels_id", "tree"]
    assert server.base_url == "http://127.0.0.1:9/v1"


def test_refs_into_a_file_beside_the_spec(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("Pet:\n  type: object\n  properties:\n    name: {type: string}\n")
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "add",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": "common.yaml#/Pet"}}}},
                }
            }
        },
    }
    (tmp_path / "api.json").write_text(json.dumps(spec))
    add = tools(str(tmp_path / "api.json"))["add"]
    assert add.input_schema["properties"] == {"name": {"type": "string"}}


@pytest.mark.parametrize(
    ("ref", "refused"),
    [
        (".env", "not read: a reference is to a JSON or YAML file (.json, .yaml or .yml)"),
        ("{tmp}/token", "not read: a reference is to a JSON or YAML file (.json, .yaml or .yml)"),
        (
            "http://127.0.0.1:9/schemas.json",
            "not fetched: the references of a spec read from a file or a dict are to files",
        ),
    ],
)
def test_a_spec_file_refers_only_to_json_and_yaml_files(tmp_path: Path, ref: str, refused: str) -> None:
    """A `.env` beside a downloaded spec parses as YAML text: `$ref: .env` showed its keys in the tool's schema."""
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-live-0123\n")
    (tmp_path / "token").write_text("tok-0123\n")
    ref = ref.replace("{tmp}", tmp_path.as_uri())
    (tmp_path / "api.json").write_text(json.dumps(_referring(ref)))
    with pytest.raises(SpecError) as raised:
        tools(str(tmp_path / "api.json"))
    assert str(raised.value) == (
        f"{tmp_path / 'api.json'}: paths./pets.post.requestBody.content.application/json.schema: "
        f"the reference {ref!r}: {refused}"
    )


def _referring(ref: str) -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": {"$ref": ref}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/pets": {"post": {"operationId": "add", "requestBody": body}}},
    }


def _documents(documents: dict[str, Any], asked: list[str]) -> Starlette:
    """Serves each of `documents` at its path (a string: a redirect there), noting each path asked for."""

    async def document(request: Request) -> Response:
        asked.append(request.url.path)
        found = documents[request.url.path]
        return RedirectResponse(found) if isinstance(found, str) else JSONResponse(found)

    return Starlette(routes=[Route(path, document) for path in documents])


def test_a_spec_from_a_url_follows_references_to_documents_on_its_own_host() -> None:
    """Through a redirect on that host too (a document moved)."""
    asked: list[str] = []
    common = {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}
    documents = {"/api.json": _referring("old.json#/Pet"), "/old.json": "/common.json", "/common.json": common}
    with served(_documents(documents, asked)) as url:
        add = tools(f"{url}/api.json")["add"]
    assert add.input_schema["properties"] == {"name": {"type": "string"}}
    assert asked == ["/api.json", "/old.json", "/common.json"]


def test_a_spec_from_a_url_cannot_have_the_gateway_fetch_another_host() -> None:
    """A reference to another address (a cloud metadata URL, an internal service) was fetched and
    what came shown in the tool's schema: `{"AccessKeyId": ...}` as the body's schema."""
    elsewhere: list[str] = []
    secret = {"AccessKeyId": "AKIA-not-for-the-model"}
    with served(_documents({"/creds": secret}, elsewhere)) as internal:
        for ref in (f"{internal}/creds", f"{internal}/creds#/AccessKeyId"):
            with served(_documents({"/api.json": _referring(ref)}, [])) as url, pytest.raises(SpecError) as raised:
                tools(f"{url}/api.json")
            assert str(raised.value) == (
                f"{url}/api.json: paths./pets.post.requestBody.content.application/json.schema: the reference "
                f"{ref!r}: not fetched: it is on another host or port than the spec (its references are followed "
                "on its own host only)"
            )
        asked: list[str] = []
        redirected = {"/api.json": _referring("moved.json"), "/moved.json": f"{internal}/creds"}
        with served(_documents(redirected, asked)) as url, pytest.raises(SpecError) as raised:
            tools(f"{url}/api.json")
    assert str(raised.value).endswith(
        f"the reference 'moved.json': cannot fetch the referenced document '{url}/moved.json': "
        "it redirects to another host (not followed)"
    )
    assert asked == ["/api.json", "/moved.json"]
    assert elsewhere == []


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"swagger": "2.0", "paths": {}}, "Swagger 2.0 is not supported"),
        ({"openapi": "2.1", "paths": {}}, "must name a 3.x version"),
        ({"openapi": "3.1.0"}, "'paths' is missing"),
        (
            {"openapi": "3.1.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/nowhere"}]}}}},
            "'#/nowhere' points to nothing",
        ),
        (
            {"openapi": "3.1.0", "paths": {"/a": {"get": {"parameters": [{"name": "x"}]}}}},
            "paths./a.get.parameters[0]: the parameter 'x' needs 'in'",
        ),
    ],
)
def test_bad_specs_are_refused_saying_what_is_wrong(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match="the spec dict") as raised:
        tools(spec)
    assert message in str(raised.value)


def test_a_missing_file_and_bad_yaml_are_named(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot read the OpenAPI spec"):
        tools(str(tmp_path / "nope.yaml"))
    (tmp_path / "bad.yaml").write_text("openapi: [\n")
    with pytest.raises(SpecError, match=r"bad\.yaml: not JSON or YAML"):
        tools(str(tmp_path / "bad.yaml"))


async def test_oneof_and_allof_bodies_reach_the_api_as_sent() -> None:
    received: list[Any] = []

    async def store(request: Request) -> JSONResponse:
        received.append((request.url.path, request.headers.get("x-trace"), await request.json()))
        return JSONResponse([received[-1][2]])

    async def label(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse({"id": int(request.path_params["id"]), **body})

    routes = [Route("/v1/shapes", store, methods=["POST"]), Route("/v1/labels/{id}", label, methods=["PUT"])]
    app = Starlette(routes=routes)
    async with serving(app) as url:
        server = RemoteServer.openapi(SPEC, base_url=f"{url}/v1")
        async with connect(server) as client:
            stored = await client.call_tool("add_shape_", {"body": {"kind": "circle", "r": 2}, "X-Trace": "t-1"})
            labelled = await client.call_tool("put_labels_id", {"id": 7, "label": "big", "note": None})
            wrong = await client.call_tool("add_shape_", {"body": {"kind": "circle", "r": 0}})
    assert received == [("/v1/shapes", "t-1", {"kind": "circle", "r": 2})]
    assert stored.structured_content == {"result": [{"kind": "circle", "r": 2}]}
    assert labelled.structured_content == {"id": 7, "label": "big", "note": None}
    assert wrong.is_error


async def test_an_answer_that_is_not_the_json_it_claims_is_a_clear_error() -> None:
    from starlette.responses import Response

    async def broken(request: Request) -> Response:
        return Response("{not json", media_type="application/json")

    async with serving(Starlette(routes=[Route("/v1/trees", broken)])) as url:
        server = RemoteServer.openapi(SPEC, base_url=f"{url}/v1")
        async with connect(server) as client:
            result = await client.call_tool("tree", {})
    assert result.is_error
    assert result.content[0].text == "API 'Shapes': GET /trees answered JSON that does not parse"


async def test_a_path_argument_cannot_step_to_another_path_of_the_api() -> None:
    """`/` and `?` in a path argument stay inside its segment (the API's credentials go along); a
    segment `.` or `..` is refused, even made of two arguments: sent as `%2E%2E` it was still `..`
    to a proxy that normalises URLs (nginx, Envoy), which sent `/v1/files/%2E%2E/admin` to `/v1/admin`."""
    seen: list[str] = []

    async def record(request: Request) -> JSONResponse:
        seen.append(request.scope["raw_path"].decode())
        return JSONResponse({})

    name = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
    ext = {**name, "name": "ext"}
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Files", "version": "1"},
        "paths": {
            "/files/{name}/meta": {"get": {"operationId": "get_file", "parameters": [name]}},
            "/raw/{name}{ext}": {"get": {"operationId": "get_raw", "parameters": [name, ext]}},
        },
    }
    app = Starlette(routes=[Route("/v1/{rest:path}", record)])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=f"{url}/v1")) as client:
        sent = [await client.call_tool("get_file", {"name": name}) for name in ("../admin", "a/b?c#d", "...", "a.b")]
        refused = [await client.call_tool("get_file", {"name": name}) for name in ("..", ".")]
        joined = await client.call_tool("get_raw", {"name": ".", "ext": "."})
    assert not any(result.is_error for result in sent)
    assert seen == [
        "/v1/files/..%2Fadmin/meta",
        "/v1/files/a%2Fb%3Fc%23d/meta",
        "/v1/files/.../meta",
        "/v1/files/a.b/meta",
    ]
    assert [result.content[0].text for result in [*refused, joined]] == [
        "argument 'name' cannot make the path segment '..': it would lead to another path of the API",
        "argument 'name' cannot make the path segment '.': it would lead to another path of the API",
        "arguments 'name', 'ext' cannot make the path segment '..': it would lead to another path of the API",
    ]


def _op(parameters: list[dict[str, Any]], responses: dict[str, Any] | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {"operationId": "op", "parameters": parameters}
    operation["responses"] = responses or {"200": {"description": "ok"}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x/{id}": {"get": operation}}}


def test_a_suffixed_argument_never_takes_the_name_of_another() -> None:
    """`id` in the path and the query become `id_path` and `id_query`; a header literally named
    `id_query` keeps its name, so the query's `id` moves on to `id_query_2`: three arguments."""
    spec = _op(
        [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "id", "in": "query", "schema": {"type": "string"}},
            {"name": "id_query", "in": "header", "schema": {"type": "string"}},
        ]
    )
    assert list(tools(spec)["op"].input_schema["properties"]) == ["id_path", "id_query_2", "id_query"]


async def test_names_a_model_api_refuses_become_arguments_it_takes_and_go_out_as_the_spec_names_them() -> None:
    """`filter[status]` (JSON:API), `$top` (OData) or `first name` as an argument made Claude's and
    Bedrock's APIs refuse the tool list (`Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'`),
    and with it every request of the session."""
    received: list[tuple[str, Any]] = []

    async def record(request: Request) -> JSONResponse:
        received.append((request.url.query, await request.json()))
        return JSONResponse({})

    fields = {"first name": {"type": "string"}, "first_name": {"type": "string"}, "top": {"type": "integer"}}
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": fields}}}}
    parameters = [
        {"name": "filter[status]", "in": "query", "required": True, "schema": {"type": "string"}},
        {"name": "$top", "in": "query", "schema": {"type": "integer"}},
        {"name": "X-Request-ID", "in": "header", "schema": {"type": "string"}},
    ]
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/people": {"post": {"operationId": "find", "parameters": parameters, "requestBody": body}}},
    }
    find = tools(spec)["find"]
    assert list(find.input_schema["properties"]) == [
        "filter_status",
        "top_query",
        "X-Request-ID",
        "first_name",
        "first_name_2",
        "top",
    ]
    assert find.input_schema["required"] == ["filter_status"]
    app = Starlette(routes=[Route("/people", record, methods=["POST"])])
    async with serving(app) as url, connect(RemoteServer.openapi(spec, base_url=url)) as client:
        arguments = {"filter_status": "open", "top_query": 5, "first_name": "Ada", "first_name_2": "Lovelace", "top": 1}
        result = await client.call_tool("find", arguments)
    assert not result.is_error, result.content
    assert received == [("filter%5Bstatus%5D=open&%24top=5", {"first name": "Ada", "first_name": "Lovelace", "top": 1})]


def test_an_operation_id_keeps_its_name_and_a_made_up_name_moves_on() -> None:
    """`GET /a` (no operationId) is `get_a` too: it came first and took the name, so the operation
    the spec names `get_a` became `get_a_2`. The operationIds are given out first (a second
    `get_a`, which the spec should not have, gets `_2`), then the made-up names."""
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {}}, "/b": {"get": {"operationId": "get_a"}}, "/c": {"get": {"operationId": "get_a"}}},
    }
    assert {name: tool.origin.source.split(" of ")[0] for name, tool in tools(spec).items()} == {
        "get_a_3": "GET /a",
        "get_a": "GET /b",
        "get_a_2": "GET /c",
    }


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": "ok", "content": {"application/json": {"schema": schema}}}


JOB = {"type": "object", "properties": {"job": {"type": "string"}}, "required": ["job"]}
THING = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def test_2xx_answers_described_differently_give_no_output_schema() -> None:
    """A `202` with a job id beside a `200` with the object: no one schema is every answer's promise."""
    path = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
    assert tools(_op(path, {"200": _json(THING), "202": _json(JOB)}))["op"].output_schema is None
    assert tools(_op(path, {"200": _json(THING), "201": _json(THING)}))["op"].output_schema is not None


async def test_a_2xx_answer_its_schema_does_not_describe_is_an_upstream_error() -> None:
    """The API's fault, said as such (not a masked internal error)."""
    path = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
    spec = _op(path, {"200": _json(THING)})

    async def wrong(request: Request) -> JSONResponse:
        return JSONResponse({"title": "no name"})

    async with (
        serving(Starlette(routes=[Route("/x/{id}", wrong)])) as url,
        connect(RemoteServer.openapi(spec, base_url=url)) as client,
    ):
        result = await client.call_tool("op", {"id": "1"})
    assert result.is_error
    assert result.content[0].text.startswith("API 't': GET /x/{id} answered JSON its spec does not describe: ")
    assert "'name' is a required property" in result.content[0].text


PET_TYPE = {"type": "object", "required": ["petType"], "properties": {"petType": {"type": "string"}}}
PETS_30: dict[str, Any] = {  # the discriminator example of the OpenAPI 3.0 specification, and a nullable $ref
    "openapi": "3.0.3",
    "info": {"title": "Pets", "version": "1"},
    "components": {
        "schemas": {
            "Cat": {**PET_TYPE, "properties": {**PET_TYPE["properties"], "meows": {"type": "boolean"}}},
            "Dog": {**PET_TYPE, "properties": {**PET_TYPE["properties"], "barks": {"type": "boolean"}}},
            "Pet": {
                "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                "discriminator": {"propertyName": "petType"},
            },
            "Home": {
                "type": "object",
                "properties": {
                    "pet": {"$ref": "#/components/schemas/Pet"},
                    "previous": {"$ref": "#/components/schemas/Pet", "nullable": True},
                },
            },
        }
    },
    "paths": {
        "/homes": {
            "post": {
                "operationId": "move_in",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Home"}}}},
                "responses": {"200": _json({"$ref": "#/components/schemas/Home"})},
            }
        }
    },
}


async def test_a_pet_the_discriminator_picks_and_a_nullable_reference_are_sent_and_answered() -> None:
    """A `Cat` is also a `Dog` to JSON Schema's `oneOf` (both take any `petType`): every call was
    refused, and every answer an `UpstreamError`. A 3.0 `nullable: true` beside a `$ref` was left
    as an unknown keyword, so an answer's `null` broke the output schema."""

    async def echo(request: Request) -> JSONResponse:
        return JSONResponse(await request.json())

    async with (
        serving(Starlette(routes=[Route("/homes", echo, methods=["POST"])])) as url,
        connect(RemoteServer.openapi(PETS_30, base_url=url)) as client,
    ):
        moved = await client.call_tool("move_in", {"pet": {"petType": "Cat", "meows": True}, "previous": None})
        unknown = await client.call_tool("move_in", {"pet": {"meows": True}})
    assert not moved.is_error, moved.content
    assert moved.structured_content == {"pet": {"petType": "Cat", "meows": True}, "previous": None}
    assert unknown.is_error  # no branch takes a pet without its petType
    assert "pet" in unknown.content[0].text
