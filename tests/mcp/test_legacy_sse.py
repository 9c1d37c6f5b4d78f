"""The legacy HTTP+SSE transport served beside streamable HTTP: the `mcp` SDK's own SSE client
against real uvicorn on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import uuid4

import anyio
import httpx2
import mcp.types as mt
from mcp import ClientSession
from mcp.client.sse import sse_client

from tests.serving import serving
from toolweave import AuthInfo, Context, Server, ToolError


def demo_server() -> Server:
    server = Server("legacy-demo")

    @server.tool
    def add(a: int, b: int) -> int:
        """a + b."""
        return a + b

    @server.tool
    def refuse() -> str:
        raise ToolError("not today")

    @server.tool
    async def count(steps: int, ctx: Context) -> str:
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps)
        return "counted"

    @server.tool
    def whoami(ctx: Context) -> dict[str, Any]:
        return {"tenant": ctx.headers.get("x-tenant"), "subject": ctx.auth.subject if ctx.auth else None}

    return server


@asynccontextmanager
async def session(url: str, **options: Any) -> AsyncIterator[ClientSession]:
    async with sse_client(url, **options) as (read, write), ClientSession(read, write) as opened:
        await opened.initialize()
        yield opened


async def test_the_sdk_sse_client_lists_and_calls_through_the_legacy_endpoint() -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with serving(demo_server().http_app(legacy_sse=True)) as base:
        async with sse_client(base + "/sse") as (read, write), ClientSession(read, write) as client:
            init = await client.initialize()
            listed = [tool.name for tool in (await client.list_tools()).tools]
            added = await client.call_tool("add", {"a": 20, "b": 22})
            refused = await client.call_tool("refuse", {})
            counted = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
        async with httpx2.AsyncClient() as http:  # streamable HTTP still answers beside it
            still = await http.post(base + "/mcp", json={}, headers={"accept": "application/json, text/event-stream"})
    assert init.server_info.name == "legacy-demo"
    assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
    assert listed == ["add", "refuse", "count", "whoami"]
    assert added.structured_content == {"result": 42}
    assert refused.is_error and refused.content[0].text == "not today"
    assert counted.content[0].text == "counted" and seen == [1, 2, 3]
    assert still.status_code in (400, 406)


async def test_list_changed_reaches_a_legacy_sse_client() -> None:
    server = demo_server()
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            changed.set()

    async with (
        serving(server.http_app(legacy_sse=True)) as base,
        sse_client(base + "/sse") as (read, write),
        ClientSession(read, write, message_handler=on_message) as client,
    ):
        await client.initialize()
        server.add_tool(lambda: "new", name="fresh")
        with anyio.fail_after(5):
            await changed.wait()
        listed = [tool.name for tool in (await client.list_tools()).tools]
    assert "fresh" in listed


def authenticate(headers: Any) -> AuthInfo | None:
    token = headers.get("authorization", "")
    return AuthInfo(subject=token.removeprefix("Bearer ")) if token == "Bearer alice" else None


async def test_headers_and_the_verified_caller_reach_the_context_over_legacy_sse() -> None:
    app = demo_server().http_app(legacy_sse=True, authenticate=authenticate)
    headers = {"authorization": "Bearer alice", "x-tenant": "acme"}
    async with serving(app) as base, session(base + "/sse", headers=headers) as client:
        result = await client.call_tool("whoami", {})
    assert result.structured_content == {"tenant": "acme", "subject": "alice"}


async def test_legacy_sse_routes_need_the_same_credentials_as_mcp() -> None:
    app = demo_server().http_app(legacy_sse=True, authenticate=authenticate)
    async with serving(app) as base, httpx2.AsyncClient() as http:
        stream = await http.get(base + "/sse", headers={"authorization": "Bearer mallory"})
        post = await http.post(f"{base}/messages/?session_id={uuid4().hex}", json={})
    assert stream.status_code == 401 and post.status_code == 401


async def test_legacy_sse_is_off_unless_asked_for() -> None:
    async with serving(demo_server().http_app()) as base, httpx2.AsyncClient() as http:
        answer = await http.get(base + "/sse")
    assert answer.status_code == 404


async def test_legacy_sse_streams_are_bounded_and_a_freed_slot_is_used_again() -> None:
    app = demo_server().http_app(legacy_sse=True, max_sessions=1)
    async with serving(app) as base, httpx2.AsyncClient() as http:
        async with session(base + "/sse") as first:
            refused = await http.get(base + "/sse")
            assert (await first.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}
        async with session(base + "/sse") as second:
            result = await second.call_tool("add", {"a": 2, "b": 2})
    assert refused.status_code == 503
    assert result.structured_content == {"result": 4}


async def test_bad_hosts_and_unknown_sessions_are_refused_and_the_server_keeps_serving() -> None:
    async with serving(demo_server().http_app(legacy_sse=True)) as base, httpx2.AsyncClient() as http:
        rebound = await http.get(base + "/sse", headers={"host": "evil.example"})
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        unknown = await http.post(f"{base}/messages/?session_id={uuid4().hex}", json=ping)
        malformed = await http.post(f"{base}/messages/?session_id=nope", json={})
        async with session(base + "/sse") as client:
            result = await client.call_tool("add", {"a": 3, "b": 4})
    assert rebound.status_code in (400, 403, 421)
    assert unknown.status_code == 404 and malformed.status_code == 400
    assert result.structured_content == {"result": 7}


async def test_a_malformed_message_on_a_legacy_session_is_answered_not_dropped() -> None:
    """The SDK took a request whose `id` is `true` or a float for a notification: 202, and no
    answer on the stream, ever. It is answered as on /mcp and over stdio, the id never quoted."""
    async with serving(demo_server().http_app(legacy_sse=True)) as base, httpx2.AsyncClient() as http:
        async with http.stream("GET", base + "/sse") as stream:
            endpoint = await _endpoint(stream)
            answers = [
                await http.post(base + endpoint, json={"jsonrpc": "2.0", "id": bad, "method": "tools/list"})
                for bad in (True, 1.5)
            ]
        async with session(base + "/sse") as client:  # and the server serves on
            result = await client.call_tool("add", {"a": 3, "b": 4})
    assert [answer.status_code for answer in answers] == [400, 400]
    assert {answer.json()["error"]["code"] for answer in answers} == {-32600}
    assert result.structured_content == {"result": 7}


async def _endpoint(stream: Any) -> str:
    """The message path (with its session id) the legacy stream announces first."""
    async for line in stream.aiter_lines():
        if line.startswith("data: /messages/"):
            return str(line.removeprefix("data: "))
    raise AssertionError("the stream announced no endpoint")
