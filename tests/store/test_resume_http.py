"""Resumable SSE over real HTTP (Redis and in-memory stores): a session's events replay to it, never to another."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest

from tests.auth.issuer import AUDIENCE, ISSUER, Issuer
from tests.serving import served, serving
from tests.store.redis_server import RedisServer
from toolweave import Server
from toolweave.auth import JWTVerifier
from toolweave.mcp.events import MemoryEventStore
from toolweave.store import RedisStore

VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


async def session(http: httpx2.AsyncClient, url: str) -> str:
    """A new handshake-era session's id."""
    init = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    headers = {"Accept": ACCEPT}
    answer = await http.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, headers=headers
    )
    answer.raise_for_status()
    sid = answer.headers["mcp-session-id"]
    headers |= {"Mcp-Session-Id": sid, "MCP-Protocol-Version": VERSION}
    done = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    assert done.status_code == 202
    return sid


@asynccontextmanager
async def events(http: httpx2.AsyncClient, url: str, sid: str, last: str | None = None) -> AsyncIterator[Any]:
    """The session's GET stream as an async iterator of (event id, data)."""
    headers = {"Accept": "text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": VERSION}
    if last is not None:
        headers["Last-Event-ID"] = last
    async with http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200

        async def parsed() -> AsyncIterator[tuple[str, str]]:
            event_id, data = "", ""
            async for line in response.aiter_lines():
                if line.startswith("id:"):
                    event_id = line[3:].strip()
                elif line.startswith("data:"):
                    data = line[5:].strip()
                elif not line and event_id:
                    yield event_id, data
                    event_id, data = "", ""

        yield parsed()


async def next_change(stream: Any, seconds: float = 5) -> str | None:
    """The id of the next `tools/list_changed` event (None if none comes within `seconds`)."""
    with anyio.move_on_after(seconds):
        async for event_id, data in stream:
            if data and json.loads(data).get("method") == "notifications/tools/list_changed":
                return str(event_id)
    return None


async def a_change_missed(http: httpx2.AsyncClient, url: str, sid: str, server: Server) -> str:
    """Watch the session's stream until `lookup` is disabled, then enable it while the client is
    away (that change is stored, for a replay); the id of the last event the client saw."""
    async with events(http, url, sid) as stream:
        await anyio.sleep(0.2)  # the stream is attached
        server.disable("lookup")
        seen = await next_change(stream)
    assert seen is not None
    server.enable("lookup")  # sent while the client is away: stored, replayed on resume
    await anyio.sleep(0.2)
    return seen


def replicas(redis: RedisServer) -> list[Server]:
    """Two replicas of one gateway sharing `redis`, each with a tool `lookup`."""
    pair = [Server("gw", store=RedisStore(redis.url, timeout=5)) for _ in range(2)]
    for server in pair:
        server.add_tool(lambda: "x", name="lookup")
    return pair


@pytest.mark.parametrize("kept", ["memory", "redis"])
async def test_a_session_resumes_its_stream_and_another_session_gets_none_of_it(redis: RedisServer, kept: str) -> None:
    server = Server("gw", store=RedisStore(redis.url, timeout=5) if kept == "redis" else None)
    options = {"event_store": MemoryEventStore()} if kept == "memory" else {}

    @server.tool
    def lookup() -> str:
        return "x"

    async with serving(server.http_app(**options)) as base, httpx2.AsyncClient(timeout=10) as http:
        url = f"{base}/mcp"
        mine = await session(http, url)
        seen = await a_change_missed(http, url, mine, server)
        async with events(http, url, mine, last=seen) as stream:
            replayed = await next_change(stream)
        other = await session(http, url)
        async with events(http, url, other, last=seen) as stream:
            leaked = await next_change(stream, seconds=1)
    assert replayed is not None and replayed != seen
    assert leaked is None


async def test_a_session_resumes_its_stream_on_a_replica_that_never_held_it(redis: RedisServer) -> None:
    first, second = replicas(redis)
    async with (
        serving(first.http_app()) as base,
        serving(second.http_app()) as other_base,
        httpx2.AsyncClient(timeout=10) as http,
    ):
        url, other_url = f"{base}/mcp", f"{other_base}/mcp"
        mine = await session(http, url)
        seen = await a_change_missed(http, url, mine, first)  # stored in Redis
        async with events(http, other_url, mine, last=seen) as stream:  # its replica is gone, say
            replayed = [(event_id, json.loads(data)["method"]) async for event_id, data in stream]  # then it ends
        changes = [f"notifications/{kind}/list_changed" for kind in ("tools", "prompts", "resources")]
        assert [method for _, method in replayed][-3:] == changes  # the enable's, and all after `seen`
        headers = {"Accept": "text/event-stream", "MCP-Protocol-Version": VERSION}
        last = replayed[-1][0]
        caught_up = await http.get(other_url, headers=headers | {"Mcp-Session-Id": mine, "Last-Event-ID": last})
        forged = await http.get(other_url, headers=headers | {"Mcp-Session-Id": "f" * 32, "Last-Event-ID": seen})
        stranger = await session(http, other_url)  # a session of its own, presenting another's event id
        async with events(http, other_url, stranger, last=seen) as stream:
            leaked = await next_change(stream, seconds=1)
    assert caught_up.status_code == forged.status_code == 404  # nothing more here: open a new session
    assert caught_up.json()["error"]["message"] == "Session not found"
    assert leaked is None


async def test_on_another_replica_a_session_replays_only_to_the_caller_who_opened_it(redis: RedisServer) -> None:
    issuer = Issuer()
    with served(issuer.app()) as issuer_url:
        issuer.base_url = issuer_url
        verifier = JWTVerifier(jwks_uri=issuer.jwks_uri, issuer=ISSUER, audience=AUDIENCE)
        first, second = replicas(redis)
        ada, bob = ({"Authorization": f"Bearer {issuer.token(sub=name)}"} for name in ("ada", "bob"))
        async with (
            serving(first.http_app(auth=verifier)) as base,
            serving(second.http_app(auth=verifier)) as other_base,
            httpx2.AsyncClient(timeout=10, headers=ada) as as_ada,
            httpx2.AsyncClient(timeout=10, headers=bob) as as_bob,
        ):
            url, other_url = f"{base}/mcp", f"{other_base}/mcp"
            mine = await session(as_ada, url)
            seen = await a_change_missed(as_ada, url, mine, first)
            headers = {"Accept": "text/event-stream", "MCP-Protocol-Version": VERSION}
            stolen = await as_bob.get(other_url, headers=headers | {"Mcp-Session-Id": mine, "Last-Event-ID": seen})
            async with events(as_ada, other_url, mine, last=seen) as stream:
                replayed = await next_change(stream)
    assert stolen.status_code == 404  # bob holds ada's session id and event id: nothing of hers
    assert replayed is not None and replayed != seen
