"""A FastAPI app served on 127.0.0.1, its own generated spec wrapped, every operation called
through the official `mcp` client."""

from __future__ import annotations

import importlib
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.openapi.petstore import API_KEY, FastAPI, petstore, received  # (skips without FastAPI)
from tests.serving import served
from toolweave import Context, RemoteServer, Server
from toolweave.openapi import OpenAPIServer, Routes
from toolweave.testing import connect
from toolweave.transforms import Arg, ExcludeArgs, FromEnv, InjectArgs, MapResult, Rename, Secret, TransformArgs


@pytest.fixture
def app() -> FastAPI:
    return petstore()


@pytest.fixture
def url(app: FastAPI) -> Iterator[str]:
    with served(app) as base:
        yield base


CALLER = Context(headers={"authorization": "Bearer caller-token", "cookie": "sid=caller-session"})
"""A caller whose credentials must never reach the API."""


def assert_caller_credentials_stayed_home(app: FastAPI, requests: int = 1) -> None:
    """The API answered `requests` requests, and none carried the caller's token or cookie."""
    arrived = received(app)
    assert len(arrived) == requests
    values = [value for headers in arrived for _, value in headers]
    assert not [value for value in values if "caller-token" in value or "caller-session" in value]


def api(url: str, **options: Any) -> OpenAPIServer:
    return RemoteServer.openapi(f"{url}/openapi.json", base_url=url, **options)


async def call(server: Server, name: str, arguments: dict[str, Any]) -> Any:
    async with connect(server) as client:
        return await client.call_tool(name, arguments)


async def test_every_operation_is_a_tool_with_its_schemas(url: str) -> None:
    async with connect(api(url)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {
        "list_pets",
        "get_pet",
        "create_pet",
        "delete_pet",
        "search",
        "whoami",
        "me",
        "weather",
        "slow",
        "readme",
        "boom",
        "echo_credentials",
        "mirror",
        "moved",
    }
    get_pet = tools["get_pet"]
    assert get_pet.description == "Get one pet by id"
    assert get_pet.input_schema["required"] == ["pet_id"]
    assert get_pet.output_schema is not None
    assert set(get_pet.output_schema["properties"]) == {"id", "name", "tag"}
    assert "$ref" not in json.dumps(get_pet.input_schema) + json.dumps(get_pet.output_schema)
    assert set(tools["create_pet"].input_schema["properties"]) == {"name", "tag"}
    assert tools["list_pets"].output_schema["x-toolweave-wrap-result"] is True
    assert tools["get_pet"].annotations.read_only_hint is True
    assert tools["delete_pet"].annotations.destructive_hint is True


async def test_path_parameter_returns_structured_content(url: str) -> None:
    result = await call(api(url), "get_pet", {"pet_id": 2})
    assert not result.is_error
    assert result.structured_content == {"id": 2, "name": "Tom", "tag": "cat"}


async def test_query_parameters_and_array_wrapped_under_result(url: str) -> None:
    result = await call(api(url), "list_pets", {"tag": "dog", "limit": 5})
    assert result.structured_content == {"result": [{"id": 1, "name": "Rex", "tag": "dog"}]}


async def test_repeated_query_values_for_an_array(url: str) -> None:
    result = await call(api(url), "search", {"q": "a b&c", "ids": [3, 4]})
    assert result.structured_content == {"q": "a b&c", "ids": [3, 4]}


async def test_body_properties_become_arguments(url: str) -> None:
    server = api(url)
    async with connect(server) as client:
        created = await client.call_tool("create_pet", {"name": "Kiki", "tag": "bird"})
        fetched = await client.call_tool("get_pet", {"pet_id": created.structured_content["id"]})
    assert created.structured_content == {"id": 3, "name": "Kiki", "tag": "bird"}
    assert fetched.structured_content == created.structured_content


async def test_no_content_answer_is_an_empty_success(url: str) -> None:
    result = await call(api(url), "delete_pet", {"pet_id": 1})
    assert not result.is_error
    assert result.content == []


async def test_text_answer_is_text(url: str) -> None:
    result = await call(api(url), "readme", {})
    assert result.content[0].text == "x" * 10_000


async def test_404_is_an_error_result_with_status_and_body(url: str) -> None:
    result = await call(api(url), "get_pet", {"pet_id": 99})
    assert result.is_error
    assert "HTTP 404" in result.content[0].text
    assert "no pet 99" in result.content[0].text
    assert "GET /pets/{pet_id}" in result.content[0].text


async def test_error_body_excerpt_is_bounded(url: str) -> None:
    result = await call(api(url, error_excerpt=100), "boom", {})
    text = result.content[0].text
    assert result.is_error and "HTTP 500" in text
    excerpt = text.split("Internal Server Error: ", 1)[1]
    assert excerpt == '{"detail":"' + "z" * 89 + "… (4913 more characters)"


async def test_no_excerpt_at_all_leaves_the_status_alone(url: str) -> None:
    result = await call(api(url, error_excerpt=0), "boom", {})
    assert result.is_error
    assert result.content[0].text == "API 'Petstore': GET /boom answered HTTP 500 Internal Server Error"


async def test_a_slow_api_times_out_with_an_error_naming_the_operation(url: str) -> None:
    result = await call(api(url, timeout=0.3), "slow", {"seconds": 5})
    assert result.is_error
    assert result.content[0].text == "API 'Petstore': GET /slow timed out"


async def test_invalid_arguments_are_refused_before_any_request(url: str) -> None:
    result = await call(api(url), "get_pet", {"pet_id": "two"})
    assert result.is_error
    assert "pet_id" in result.content[0].text


async def test_upstream_header_from_the_environment_is_sent_and_not_an_argument(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_KEY", API_KEY)
    server = api(url, headers={"X-Api-Key": FromEnv("PETSTORE_KEY")})
    async with connect(server) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("whoami", {"x-request-id": "r-1"})
    assert "x-api-key" not in listed["whoami"].input_schema["properties"]
    assert result.structured_content == {"user": "alice", "request_id": "r-1"}


async def test_a_credential_echoed_in_an_error_body_is_scrubbed(url: str) -> None:
    server = api(url, headers={"x-api-key": Secret("sk-wrong-key-000")}, include=Routes(paths=["/whoami"]))
    result = await call(server, "whoami", {})
    assert result.is_error and "HTTP 401" in result.content[0].text
    assert "sk-wrong-key-000" not in result.content[0].text


async def test_the_callers_token_is_never_forwarded(url: str, app: FastAPI) -> None:
    """A header the caller sent does not reach the API unless a header source says so."""
    server = api(url, include=Routes(paths=["/me"]))
    async with server:
        result = await server.call_tool("me", {}, ctx=CALLER)
    assert result.structured_content == {"authorization": None}
    assert_caller_credentials_stayed_home(app)


async def test_hidden_api_key_injected_renamed_and_trimmed(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Transforms apply to OpenAPI tools like to any other: rename, hide-and-inject, MapResult."""
    monkeypatch.setenv("WEATHER_KEY", API_KEY)
    server = api(url, include=Routes(paths=["/weather"]))
    server.add_transform(InjectArgs(api_key=FromEnv("WEATHER_KEY")))
    server.add_transform(Rename("sky_over"))
    server.add_transform(MapResult(lambda result: result.structured_content["sky"], output_schema=str))
    async with connect(server) as client:
        tool = (await client.list_tools()).tools[0]
        result = await client.call_tool("sky_over", {"city": "Oslo"})
        spoofed = await client.call_tool("sky_over", {"city": "Oslo", "api_key": "x"})
    assert tool.name == "sky_over"
    assert list(tool.input_schema["properties"]) == ["city"]
    assert result.structured_content == {"result": "clear"}
    assert spoofed.is_error


async def test_an_excluded_argument_takes_its_default_and_is_not_sent(url: str) -> None:
    server = api(url, include=Routes(paths=["/pets"], methods=["GET"]))
    server.add_transform(ExcludeArgs("tag"))
    server.add_transform(TransformArgs({"limit": Arg(name="max_pets", default=1)}))
    async with connect(server) as client:
        tool = (await client.list_tools()).tools[0]
        result = await client.call_tool("list_pets", {})
    assert list(tool.input_schema["properties"]) == ["max_pets"]
    assert result.structured_content == {"result": [{"id": 1, "name": "Rex", "tag": "dog"}]}


async def test_route_filters_by_tag_method_and_path(url: str) -> None:
    only_pets = api(url, include=Routes(tags=["pets"]), exclude=Routes(methods=["DELETE"]))
    reads = api(url, include=Routes(methods=["GET"], paths=["/pets/*"]))
    assert [t.name for t in only_pets.catalog.tools] == ["list_pets", "create_pet", "get_pet"]
    assert [t.name for t in reads.catalog.tools] == ["get_pet"]


async def test_mounted_under_a_prefix_with_middleware(url: str) -> None:
    from toolweave.testing import RecordingMiddleware

    gateway = Server("gateway")
    recorder = RecordingMiddleware()
    gateway.add_middleware(recorder)
    gateway.mount(api(url, include=Routes(paths=["/pets/*"])), prefix="pets")
    result = await call(gateway, "pets_get_pet", {"pet_id": 1})
    assert result.structured_content["name"] == "Rex"
    assert [c.tool.name for c in recorder.calls] == ["pets_get_pet"]


async def test_a_call_outside_the_lifespan_opens_the_client_for_that_call(url: str) -> None:
    server = api(url)
    result = await server.call_tool("get_pet", {"pet_id": 1})
    assert result.structured_content == {"id": 1, "name": "Rex", "tag": "dog"}
    assert not server.running


async def test_a_client_of_ones_own_is_used_and_left_open(url: str) -> None:
    import httpx2

    async with httpx2.AsyncClient(base_url=url) as own:
        server = api(url, client=own)
        result = await server.call_tool("get_pet", {"pet_id": 1})
        async with server:
            again = await server.call_tool("get_pet", {"pet_id": 1})
        assert not own.is_closed
    assert result.structured_content == again.structured_content == {"id": 1, "name": "Rex", "tag": "dog"}


async def test_an_api_that_is_gone_fails_the_call_clearly() -> None:
    from tests.conftest import free_port

    with served(petstore()) as url:
        spec = f"{url}/openapi.json"
        server = RemoteServer.openapi(spec, base_url=f"http://127.0.0.1:{free_port()}")
    result = await call(server, "get_pet", {"pet_id": 1})
    assert result.is_error
    assert (
        result.content[0].text
        == "API 'Petstore': GET /pets/{pet_id} failed: the connection could not be opened (ConnectError)"
    )


async def test_an_answer_over_the_size_limit_fails_the_call(url: str) -> None:
    result = await call(api(url, max_response_bytes=1000), "readme", {})
    assert result.is_error
    assert result.content[0].text == "API 'Petstore': GET /readme answered more than 1000 bytes"


async def test_upstream_auth_signs_every_request_and_the_callers_token_stays_home(
    url: str, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolweave.auth import Bearer

    monkeypatch.setenv("PETS_TOKEN", "upstream-token")
    server = api(url, auth=Bearer(FromEnv("PETS_TOKEN")), include=Routes(paths=["/me"]))
    async with server:
        result = await server.call_tool("me", {}, ctx=CALLER)
        again = await server.call_tool("me", {}, ctx=CALLER)
    assert [dict(request)["authorization"] for request in received(app)] == ["Bearer upstream-token"] * 2
    assert result.structured_content == again.structured_content == {"authorization": "[redacted]"}
    assert_caller_credentials_stayed_home(app, requests=2)


async def test_a_header_argument_cannot_add_headers_of_its_own(url: str) -> None:
    result = await call(api(url, include=Routes(paths=["/whoami"])), "whoami",
                        {"x-api-key": API_KEY, "x-request-id": "r\r\nx-admin: 1"})  # fmt: skip
    assert result.is_error
    assert result.content[0].text == "argument 'x-request-id' cannot hold a line break: it is sent as an HTTP header"


# -- credentials an API echoes -------------------------------------------------------------------


def _bearer(token: str) -> Any:
    from toolweave.auth import Bearer

    return {"auth": Bearer(token)}


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param(lambda: {"headers": {"authorization": ("Bearer {}", FromEnv("PETS_TOKEN"))}}, id="headers"),
        pytest.param(lambda: {"headers": {"x-api-key": Secret("sk-live-SECRET-999")}}, id="secret-header"),
        pytest.param(lambda: _bearer("sk-live-SECRET-999"), id="auth-bearer"),
        pytest.param(lambda: _bearer(FromEnv("PETS_TOKEN")), id="auth-bearer-env"),  # type: ignore[arg-type]
    ],
)
async def test_every_credential_sent_is_scrubbed_from_an_echoing_error(
    url: str, monkeypatch: pytest.MonkeyPatch, credentials: Any
) -> None:
    """`auth=` as well as `headers=`: the value sent, and the token without its scheme."""
    monkeypatch.setenv("PETS_TOKEN", "sk-live-SECRET-999")
    server = api(url, include=Routes(paths=["/echo"]), **credentials())
    result = await call(server, "echo_credentials", {})
    assert result.is_error and "HTTP 401" in result.content[0].text
    assert "bad credentials: [" in result.content[0].text
    assert "SECRET" not in result.content[0].text


async def test_the_clients_own_credentials_are_scrubbed_too(url: str) -> None:
    import httpx2

    headers = {"authorization": "Bearer client-default-token", "cookie": "sid=client-session"}
    async with httpx2.AsyncClient(base_url=url, headers=headers) as own:
        result = await call(api(url, client=own, include=Routes(paths=["/echo"])), "echo_credentials", {})
    text = result.content[0].text
    assert result.is_error and "bad credentials: [" in text
    assert "client-default-token" not in text and "client-session" not in text


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param(lambda url: {"headers": {"authorization": ("Bearer {}", FromEnv("PETS_TOKEN"))}}, id="headers"),
        pytest.param(lambda url: {"headers": {"x-api-key": Secret("sk-live-SECRET-999")}}, id="secret-header"),
        pytest.param(lambda url: _bearer("sk-live-SECRET-999"), id="auth-bearer"),
        pytest.param(lambda url: {"base_url": f"{url}?api_key=sk-live-SECRET-999"}, id="base-url-query"),
        pytest.param(lambda url: {"headers": {"Cookie": Secret("sid=sk-live-SECRET-999")}}, id="cookie"),
    ],
)
async def test_every_credential_sent_is_scrubbed_from_an_echoing_2xx_answer(
    url: str, monkeypatch: pytest.MonkeyPatch, credentials: Any
) -> None:
    """A 2xx answer that quotes a credential (text and structured content) reaches the client without it."""
    monkeypatch.setenv("PETS_TOKEN", "sk-live-SECRET-999")
    options = {"base_url": url, **credentials(url)}
    server = RemoteServer.openapi(f"{url}/openapi.json", include=Routes(paths=["/mirror"]), **options)
    result = await call(server, "mirror", {})
    assert not result.is_error
    assert "SECRET" not in result.content[0].text and "SECRET" not in json.dumps(result.structured_content)
    assert "[redacted]" in json.dumps(result.structured_content)


async def test_a_plain_header_constant_is_no_secret(url: str) -> None:
    """`x-app: ...` is a setting, not a credential: an answer quoting it is left as it is."""
    server = api(url, include=Routes(paths=["/mirror"]), headers={"x-app": "gateway-client-one"})
    result = await call(server, "mirror", {})
    assert result.structured_content["x-app"] == "gateway-client-one"


async def test_a_credential_cookie_and_a_cookie_argument_share_one_header(url: str, app: FastAPI) -> None:
    server = api(url, include=Routes(paths=["/mirror"]), headers={"Cookie": Secret("sid=session-0123")})
    result = await call(server, "mirror", {"theme": "dark"})
    assert result.structured_content["theme"] == "dark"
    cookies = [value for name, value in received(app)[-1] if name == "cookie"]
    assert cookies == ["theme=dark; sid=session-0123"]


async def test_a_cookie_the_server_sends_is_no_argument(url: str, app: FastAPI) -> None:
    """As a header the server sends: the model's `theme` went first in the one `cookie` header, and
    an API reading the first of two cookies of a name took the model's over the gateway's."""
    server = api(url, include=Routes(paths=["/mirror"]), headers={"Cookie": Secret("theme=light; sid=session-0123")})
    assert "theme" not in server.catalog.tools[0].input_schema["properties"]
    result = await call(server, "mirror", {})
    assert result.structured_content["theme"] == "light"
    assert [value for name, value in received(app)[-1] if name == "cookie"] == ["theme=light; sid=session-0123"]


async def test_a_redirect_says_where_it_points_and_that_it_is_not_followed(url: str) -> None:
    result = await call(api(url, include=Routes(paths=["/moved"])), "moved", {})
    assert result.is_error
    assert "answered HTTP 302 Found (to /pets?limit=1: redirects are not followed)" in result.content[0].text


@pytest.mark.parametrize("library", ["httpx2", "httpx"])
async def test_a_client_of_ones_own_that_follows_redirects_does_not_follow_them_here(
    url: str, app: FastAPI, library: str
) -> None:
    """A `client=` made with `follow_redirects=True` followed them, and the API's key in `headers=`
    went along to wherever the `Location` pointed (httpx drops only `Authorization` on the way)."""
    http = importlib.import_module(library)
    async with http.AsyncClient(follow_redirects=True) as own:
        server = api(url, client=own, include=Routes(paths=["/moved"]), headers={"x-api-key": API_KEY})
        result = await call(server, "moved", {})
    assert result.is_error
    assert "answered HTTP 302 Found (to /pets?limit=1: redirects are not followed)" in result.content[0].text
    assert len(received(app)) == 1  # the redirect's target was never asked


async def test_a_mounted_api_is_named_by_its_prefix_in_errors(url: str) -> None:
    gateway = Server("gateway")
    gateway.mount(api(url, include=Routes(paths=["/boom"])), prefix="zoo")
    result = await call(gateway, "zoo_boom", {})
    assert result.is_error and result.content[0].text.startswith("API 'zoo': GET /boom answered HTTP 500")


async def test_an_argument_the_model_gave_is_not_scrubbed(url: str) -> None:
    """The model may see what it sent itself: an API's complaint about it stays readable."""
    result = await call(api(url, include=Routes(paths=["/whoami"])), "whoami", {"x-api-key": "mine"})
    assert result.is_error and "bad key mine" in result.content[0].text


# -- OAuth client credentials against a real token endpoint --------------------------------------


def _token_of(request: list[tuple[str, str]]) -> dict[str, Any]:
    """The claims of the bearer token one request the API received carried."""
    import jwt

    scheme, _, token = dict(request)["authorization"].partition(" ")
    assert scheme == "Bearer"
    return jwt.decode(token, options={"verify_signature": False})  # type: ignore[no-any-return]


async def test_oauth_client_credentials_sign_calls_with_the_gateways_own_token(
    url: str, app: FastAPI, issuer: Any
) -> None:
    from tests.auth.issuer import INTROSPECTION_CLIENT
    from toolweave.auth import OAuthClientCredentials

    flow = OAuthClientCredentials(issuer.token_url, *INTROSPECTION_CLIENT, scopes=["pets"])
    server = api(url, auth=flow, include=Routes(paths=["/me", "/echo"]))
    async with server:
        first = await server.call_tool("me", {}, ctx=CALLER)
        second = await server.call_tool("me", {}, ctx=CALLER)
        refused = await server.call_tool("echo_credentials", {})
    me, again = received(app)[:2]
    assert _token_of(me) == _token_of(again)
    assert _token_of(me)["sub"] == "gateway" and _token_of(me)["scope"] == "pets"
    assert first.structured_content == second.structured_content == {"authorization": "[redacted]"}
    assert issuer.token_requests == 2  # one token for both calls; the 401 asks for a fresh one
    assert refused.is_error and "bad credentials: [" in refused.text
    assert "Bearer ey" not in refused.text and "'ey" not in refused.text  # no JWT, whole or bare
    assert_caller_credentials_stayed_home(app, requests=4)  # me, me, echo and its one retry


async def test_a_token_the_gateway_cannot_get_is_the_operators_to_fix_not_the_clients_to_read(
    url: str, issuer: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The refusal named the authorization server's address and the gateway's client id to every
    caller; it is an internal failure now: masked for the client, told to the operator."""
    from toolweave.auth import OAuthClientCredentials

    flow = OAuthClientCredentials(issuer.token_url, "gateway-client", "wrong-s3cret")
    server = api(url, auth=flow, include=Routes(paths=["/me"]))
    with caplog.at_level(logging.ERROR, logger="toolweave.errors"):
        async with server:
            result = await server.call_tool("me", {}, ctx=CALLER)
    incident = re.fullmatch(r"Error calling tool 'me' \(incident (\w+)\)", result.text)
    assert result.is_error and incident is not None, result.text
    assert f"tool 'me' failed (incident {incident.group(1)})" in caplog.text  # with what the endpoint said:
    assert "refused the client credentials of 'gateway-client'" in caplog.text
    assert "wrong-s3cret" not in caplog.text


async def test_oauth_client_credentials_from_a_config_entry(
    url: str, app: FastAPI, issuer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.auth.issuer import INTROSPECTION_CLIENT
    from toolweave.config import build
    from toolweave.config.models import Config

    monkeypatch.setenv("PETS_CLIENT_SECRET", INTROSPECTION_CLIENT[1])
    credentials = {
        "token_url": issuer.token_url,
        "client_id": INTROSPECTION_CLIENT[0],
        "client_secret": "env:PETS_CLIENT_SECRET",
    }
    entry = {"spec": f"{url}/openapi.json", "base_url": url, "include_routes": [{"paths": ["/me"]}]}
    composed = build(
        Config.model_validate({"openapi": {"pets": {**entry, "auth": {"client_credentials": credentials}}}})
    )
    async with composed.running() as server:
        result = await server.call_tool("me", {}, ctx=CALLER)
    assert _token_of(received(app)[0])["sub"] == "gateway"
    assert result.structured_content == {"authorization": "[redacted]"}  # the API echoes it: scrubbed
    assert issuer.token_requests == 1
    assert_caller_credentials_stayed_home(app)


# -- the client= given -----------------------------------------------------------------------------


async def test_a_classic_httpx_client_is_used_too(url: str) -> None:
    import httpx

    async with httpx.AsyncClient(base_url=url) as own:
        result = await api(url, client=own).call_tool("get_pet", {"pet_id": 1})
        assert not own.is_closed
    async with httpx.AsyncClient(base_url=url, timeout=0.2) as slow:
        timed_out = await api(url, client=slow).call_tool("slow", {"seconds": 2})
    async with httpx.AsyncClient(base_url="http://127.0.0.1:1") as nowhere:  # its base URL is the address
        gone = await RemoteServer.openapi(f"{url}/openapi.json", client=nowhere).call_tool("get_pet", {"pet_id": 1})
    assert result.structured_content == {"id": 1, "name": "Rex", "tag": "dog"}
    assert timed_out.is_error and timed_out.text == "API 'Petstore': GET /slow timed out"
    assert gone.is_error
    assert gone.text == "API 'Petstore': GET /pets/{pet_id} failed: the connection could not be opened (ConnectError)"


async def test_a_client_or_auth_that_cannot_work_is_refused_when_the_server_is_built(url: str) -> None:
    import httpx

    from toolweave.auth import Bearer

    with pytest.raises(TypeError, match=r"client= takes an httpx2\.AsyncClient \(or an httpx\.AsyncClient\), not dict"):
        api(url, client={"base_url": url})
    async with httpx.AsyncClient(base_url=url) as own:
        with pytest.raises(TypeError, match=r"the httpx\.AsyncClient given as client= cannot run it"):
            api(url, client=own, auth=Bearer("t"))
    with pytest.raises(TypeError, match="auth= takes an httpx2 auth, not a string"):
        api(url, auth="t0k3n")
