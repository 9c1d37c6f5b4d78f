"""Where an OpenAPI tool's request goes: a `base_url` with a query (an API key in it), and a spec
fetched from a URL that lists no `servers` (every FastAPI app's), against a real app on 127.0.0.1."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.acceptance.cli_helpers import EXAMPLES, run_cli
from tests.serving import served, serving
from toolweave import ConfigError, RemoteServer
from toolweave.config import build
from toolweave.config.models import Config
from toolweave.openapi import SpecError
from toolweave.testing import connect
from toolweave.transforms import Secret

ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
Q = {"name": "q", "in": "query", "schema": {"type": "string"}}
KEY = {"name": "key", "in": "query", "required": True, "schema": {"type": "string"}}
SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Things", "version": "1"},
    "paths": {
        "/things/{id}": {"get": {"operationId": "thing", "parameters": [ID, Q]}},
        "/keyed": {"get": {"operationId": "keyed", "parameters": [KEY, Q]}},
    },
}


async def _where(request: Request) -> JSONResponse:
    """Where the request arrived: its path and its query, as sent."""
    return JSONResponse({"path": request.url.path, "query": request.url.query})


APP = Starlette(routes=[Route("/{rest:path}", _where)])


async def test_the_query_of_base_url_is_sent_with_every_call_and_the_path_joined() -> None:
    """`/v1?key=k` took the operation's path for more of its query: `GET /v1?q=hello` went out, and
    succeeded, with neither `/things/42` nor the key. The API echoes the key: its answer reaches
    the client with the key scrubbed."""
    async with (
        serving(APP) as url,
        connect(RemoteServer.openapi(SPEC, base_url=f"{url}/v1?key=sk-0123%2B9&v=2")) as client,
    ):
        thing = await client.call_tool("thing", {"id": "42", "q": "hello"})
        bare = await client.call_tool("thing", {"id": "7"})
    assert thing.content[0].text == '{"path":"/v1/things/42","query":"key=[redacted]&v=2&q=hello"}'
    assert bare.content[0].text == '{"path":"/v1/things/7","query":"key=[redacted]&v=2"}'


async def test_a_query_parameter_the_base_url_gives_is_not_an_argument() -> None:
    """The base URL's value wins, as a header the server sends does: the model can neither see nor
    replace the key, and an operation that requires it is called without asking for it."""
    api = RemoteServer.openapi(SPEC, base_url="http://127.0.0.1:9/?key=sk-fixed-0123")
    keyed = next(tool for tool in api.catalog.tools if tool.name == "keyed")
    assert keyed.input_schema == {"type": "object", "properties": {"q": {"type": "string"}}}
    async with serving(APP) as url, connect(RemoteServer.openapi(SPEC, base_url=f"{url}?key=sk-fixed-0123")) as client:
        result = await client.call_tool("keyed", {"q": "a"})
        spoofed = await client.call_tool("keyed", {"q": "a", "key": "mine"})
    assert result.content[0].text == '{"path":"/keyed","query":"key=[redacted]&q=a"}'  # sent, and scrubbed
    assert spoofed.is_error
    assert spoofed.content[0].text == "Invalid arguments for tool 'keyed':\n- key: unexpected argument"


async def test_a_binary_answer_is_named_by_its_url_without_the_key_of_base_url() -> None:
    """A file, a PDF or any bytes are an embedded resource named by the request's URL, which
    carried the base URL's `?key=` to the model in the clear."""

    async def report(request: Request) -> Response:
        return Response(b"%PDF-1.7", media_type="application/pdf")

    app = Starlette(routes=[Route("/{rest:path}", report)])
    async with serving(app) as url, connect(RemoteServer.openapi(SPEC, base_url=f"{url}/v1?key=sk-0123%2B9")) as client:
        result = await client.call_tool("thing", {"id": "42", "q": "hello"})
    assert result.content[0].resource.uri == f"{url}/v1/things/42?key=[redacted]&q=hello"
    assert result.content[0].resource.blob == "JVBERi0xLjc="


async def test_an_object_argument_cannot_send_again_what_the_server_sends() -> None:
    """An object query parameter is sent key by key (`form`, exploded): `{"tenant": "other"}` went
    out as `?tenant=acme&tenant=other`, and an API reading the last one served another tenant
    with the gateway's credentials; a cookie object could add the credential cookie alike."""
    filters = {"name": "filter", "in": "query", "schema": {"type": "object"}}
    prefs = {"name": "prefs", "in": "cookie", "schema": {"type": "object"}}
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Things", "version": "1"},
        "paths": {"/items": {"get": {"operationId": "items", "parameters": [filters, prefs]}}},
    }
    async with serving(APP) as url:
        server = RemoteServer.openapi(spec, base_url=f"{url}?tenant=acme", headers={"Cookie": Secret("sid=s-0123")})
        async with connect(server) as client:
            fine = await client.call_tool("items", {"filter": {"status": "open"}, "prefs": {"theme": "dark"}})
            tenant = await client.call_tool("items", {"filter": {"status": "open", "tenant": "other"}})
            session = await client.call_tool("items", {"prefs": {"sid": "mine"}})
    assert fine.content[0].text == '{"path":"/items","query":"tenant=acme&status=open"}'
    assert (tenant.is_error, session.is_error) == (True, True)
    assert tenant.content[0].text == "argument 'filter' cannot set the query parameter 'tenant': the server sends it"
    assert session.content[0].text == "argument 'prefs' cannot set the cookie 'sid': the server sends it"


def test_the_key_in_base_url_is_shown_masked() -> None:
    api = RemoteServer.openapi(SPEC, base_url="https://api.example/v1?api_key=sk-live-0123&v=2")
    assert api.shown_base_url == "https://api.example/v1?api_key=***&v=2"
    assert "sk-live-0123" not in repr(api)
    assert all("sk-live-0123" not in tool.origin.source for tool in api.catalog.tools)


def test_a_key_the_config_expanded_into_base_url_stays_out_of_explain(tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text(json.dumps(SPEC))
    config = tmp_path / "gateway.yaml"
    config.write_text(
        "openapi:\n  things:\n    spec: spec.json\n    base_url: 'http://127.0.0.1:9/v1?token=${TOKEN}'\n"
    )
    explained = run_cli("explain", str(config), env={"TOKEN": "tok-secret-4567"})
    assert explained.returncode == 0, explained.stderr
    assert "tok-secret-4567" not in explained.stdout + explained.stderr
    assert "http://127.0.0.1:9/v1?token=***" in explained.stdout


@pytest.mark.parametrize("base_url", ["https://api.example/v1#key=k", "https://api.example/v1?key=k#part"])
def test_a_fragment_in_base_url_is_refused_naming_base_url(base_url: str) -> None:
    """A fragment is never sent: `?key=k#part` sent no key, and `#key=k` hid the operation's path."""
    with pytest.raises(ValueError, match=r"^base_url cannot hold a fragment \('#\.\.\.'\)") as caught:
        RemoteServer.openapi(SPEC, base_url=base_url)
    assert "key=k" not in str(caught.value)
    entry = {"spec": "petstore.openapi.json", "base_url": base_url}
    with pytest.raises(ConfigError, match=r"openapi\.pets\.base_url: base_url cannot hold a fragment"):
        build(Config.model_validate({"openapi": {"pets": entry}}), base_dir=EXAMPLES)


# -- a spec that lists no servers ----------------------------------------------------------------


def _serving_its_spec(spec: dict[str, Any]) -> Starlette:
    async def document(request: Request) -> JSONResponse:
        return JSONResponse(spec)

    return Starlette(routes=[Route("/openapi.json", document), Route("/{rest:path}", _where)])


async def test_a_spec_from_a_url_with_no_servers_is_answered_by_its_own_host() -> None:
    """OpenAPI 3: no `servers` is one server `/`, taken against the spec's URL. A FastAPI app's own
    spec was refused: "no base_url given and the spec lists no 'servers'"."""
    with served(_serving_its_spec(SPEC)) as url:
        api = RemoteServer.openapi(f"{url}/openapi.json?version=3")
        assert api.base_url == f"{url}/"
        async with connect(api) as client:
            result = await client.call_tool("thing", {"id": "42"})
    assert result.content[0].text == '{"path":"/things/42","query":""}'


def test_a_spec_dict_with_no_servers_asks_for_base_url() -> None:
    with pytest.raises(SpecError) as caught:
        RemoteServer.openapi(SPEC)
    assert str(caught.value) == (
        "the spec dict: no base_url given, and the spec lists no 'servers' and was not read from a URL "
        "(give base_url, the API's http(s):// address)"
    )


# -- a client of one's own -----------------------------------------------------------------------


def _without_base_url(library: str) -> Any:
    """An `AsyncClient` of `library` (`httpx2` or the classic `httpx`) with no base URL of its own."""
    return importlib.import_module(library).AsyncClient()  # (both are installed: a failure is a real one)


@pytest.mark.parametrize("library", ["httpx2", "httpx"])
@pytest.mark.parametrize("from_spec", [False, True], ids=["base_url", "servers"])
async def test_a_client_without_a_base_url_calls_the_address_the_server_shows(library: str, from_spec: bool) -> None:
    """Only the client toolweave opens had the address: with a client given, every call failed
    "the URL is not an http(s) URL (UnsupportedProtocol)", `base_url=` or the spec's servers alike."""
    async with serving(APP) as url, _without_base_url(library) as own:
        address = f"{url}/v1?key=sk-01234567"
        given = {"servers": [{"url": address}]} if from_spec else {}
        api = RemoteServer.openapi({**SPEC, **given}, client=own, **({} if from_spec else {"base_url": address}))
        assert api.base_url == address
        async with connect(api) as client:
            result = await client.call_tool("thing", {"id": "42", "q": "hello"})
    assert result.content[0].text == '{"path":"/v1/things/42","query":"key=[redacted]&q=hello"}'


async def test_the_base_url_of_the_client_given_is_the_address_shown_and_called() -> None:
    """The spec's servers URL was shown (in `explain`, the tools' origin) while the client's own
    base URL was called."""
    import httpx2

    spec = {**SPEC, "servers": [{"url": "http://127.0.0.1:9/elsewhere"}]}
    async with serving(APP) as url, httpx2.AsyncClient(base_url=f"{url}/v2") as own:
        api = RemoteServer.openapi(spec, client=own)
        assert api.shown_base_url == f"{url}/v2/"
        assert all(tool.origin.source.endswith(f"of {url}/v2/") for tool in api.catalog.tools)
        async with connect(api) as client:
            result = await client.call_tool("thing", {"id": "42"})
    assert result.content[0].text == '{"path":"/v2/things/42","query":""}'


async def test_a_base_url_other_than_the_clients_own_is_refused_naming_both() -> None:
    """The client's base URL won, silently, while `explain` and the server's repr showed `base_url=`:
    which of the two is meant is not known. The same address written two ways is no conflict."""
    import httpx2

    async with httpx2.AsyncClient(base_url="https://api.example/v1") as own:
        with pytest.raises(ValueError) as caught:
            RemoteServer.openapi(SPEC, client=own, base_url="https://staging.example/v1?api_key=sk-live-0123")
        same = RemoteServer.openapi(SPEC, client=own, base_url="https://API.example/v1/")
    assert str(caught.value) == (
        "base_url 'https://staging.example/v1?api_key=***' is another address than the base URL of the client "
        "given, 'https://api.example/v1/': give one of them (or the same in both)"
    )
    assert same.base_url == "https://API.example/v1/"
