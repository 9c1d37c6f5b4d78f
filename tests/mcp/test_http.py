"""Real streamable HTTP on 127.0.0.1: both protocol eras, headers, authentication hook, the ASGI app."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import ROOT
from tests.serving import PORT, serving, spawned


@pytest.fixture(scope="module")
def quickstart_url() -> Iterator[str]:
    with spawned(sys.executable, str(ROOT / "examples" / "quickstart.py"), "--http", PORT) as server:
        yield f"{server.url}/mcp"


async def test_2026_clients_list_and_call_over_http(quickstart_url: str) -> None:
    async with Client(quickstart_url) as client:
        assert client.protocol_version == "2026-07-28"
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("convert_temperature", {"value": 32, "unit": "F"})
    assert names == ["convert_temperature", "text_stats", "roll_dice"]
    assert result.structured_content == {"result": 0.0}


async def test_handshake_clients_list_and_call_over_http(quickstart_url: str) -> None:
    async with streamable_http_client(quickstart_url) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.protocol_version.startswith("2025")
        assert init.capabilities.tools.list_changed is True
        result = await session.call_tool("text_stats", {"text": "a b c"})
    assert result.structured_content["words"] == 3


async def test_headers_and_authentication_reach_the_context() -> None:
    import httpx2

    from toolweave import AuthInfo, Context, Server

    server = Server("who")

    @server.tool
    def whoami(ctx: Context) -> dict[str, Any]:
        return {"tenant": ctx.headers.get("x-tenant"), "subject": ctx.auth.subject if ctx.auth else None}

    def authenticate(headers: Any) -> AuthInfo | None:
        token = headers.get("authorization", "")
        return AuthInfo(subject=token.removeprefix("Bearer ")) if token else None

    async with serving(server.http_app(authenticate=authenticate)) as base:
        headers = {"x-tenant": "acme", "authorization": "Bearer alice"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
        ):
            result = await client.call_tool("whoami", {})
    assert result.structured_content == {"tenant": "acme", "subject": "alice"}


async def test_a_2026_http_call_with_arguments_does_not_list_every_tool() -> None:
    from toolweave import Context, Server, Tool
    from toolweave.middleware import Middleware

    class CountListings(Middleware):
        listings = 0

        async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
            type(self).listings += 1
            return tools

    server = Server("many", middleware=[CountListings()])
    for n in range(200):
        server.add_tool(lambda text: text, name=f"echo_{n}")
    async with serving(server.http_app()) as base, Client(base + "/mcp") as client:
        assert client.protocol_version == "2026-07-28"
        for n in range(5):
            result = await client.call_tool(f"echo_{n}", {"text": "hi"})
            assert result.content[0].text == "hi"
    assert CountListings.listings == 1  # the client's own listing (to check results), none per call


async def test_a_stateless_server_refuses_a_get_stream_it_could_never_write_to() -> None:
    """A stateless server has no session to send anything on, so `GET` is 405 as on the 2026
    path, not an SSE stream held open forever (each one a connection slot taken)."""
    import httpx2

    from tests.serving import RAW_HEADERS, RAW_INITIALIZE
    from toolweave import Server

    server = Server("stateless")
    server.add_tool(lambda text: text, name="echo")
    async with serving(server.http_app(stateless=True)) as base, httpx2.AsyncClient(timeout=10) as http:
        async with http.stream("GET", base + "/mcp", headers={"accept": "text/event-stream"}) as stream:
            status, allowed, body = stream.status_code, stream.headers.get("allow"), await stream.aread()
        handshake = await http.post(base + "/mcp", headers=RAW_HEADERS, json=RAW_INITIALIZE)
        async with (
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("echo", {"text": "still serving"})
    assert (status, allowed) == (405, "POST")
    assert json.loads(body)["error"]["code"] == -32600
    assert handshake.status_code == 200 and "mcp-session-id" not in handshake.headers
    assert result.content[0].text == "still serving"


@pytest.mark.parametrize(
    ("path", "options"), [("/sse", {"legacy_sse": True}), ("/messages/", {"legacy_sse": True}), ("/healthz", {})]
)
def test_an_endpoint_path_another_route_serves_is_refused(path: str, options: dict[str, Any]) -> None:
    """The MCP route comes first: on `/sse` it took every legacy client's stream (400), on
    `/healthz` every probe, without a word when the app was built."""
    from toolweave import Server

    with pytest.raises(ValueError, match=f"path='{path}' is also"):
        Server("clash").http_app(path=path, **options)


async def test_a_2026_client_that_gives_up_on_a_json_response_call_cancels_the_tool() -> None:
    """On the 2026 wire closing the request is the cancellation: with `json_response=True` the
    SDK never noticed, and the tool ran to its end for nobody."""
    import anyio

    from toolweave import Server

    server = Server("slow")
    started, cancelled = anyio.Event(), anyio.Event()

    @server.tool
    async def wait() -> str:
        started.set()
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        return "finished"

    async with serving(server.http_app(json_response=True)) as base, Client(base + "/mcp") as client:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(client.call_tool, "wait", {})
            await started.wait()
            tasks.cancel_scope.cancel()
        with anyio.fail_after(10):
            await cancelled.wait()
        assert (await client.list_tools()).tools[0].name == "wait"
