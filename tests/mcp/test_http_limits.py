"""HTTP limits take effect: body size, sessions, idle sessions, concurrent connections."""

from __future__ import annotations

import json
import socket

import anyio
import httpx2

from tests.serving import RAW_HEADERS as HEADERS
from tests.serving import RAW_INITIALIZE as INITIALIZE
from tests.serving import serving
from toolweave import Server


def small_server() -> Server:
    server = Server("limited")

    @server.tool
    def echo(text: str) -> str:
        return text

    return server


async def test_a_body_over_the_limit_gets_413() -> None:
    app = small_server().http_app(max_request_body_size=2048)
    body = {**INITIALIZE, "params": {**INITIALIZE["params"], "padding": "x" * 4096}}
    async with serving(app) as base, httpx2.AsyncClient() as http:
        too_big = await http.post(base + "/mcp", headers=HEADERS, content=json.dumps(body))
        fine = await http.post(base + "/mcp", headers=HEADERS, content=json.dumps(INITIALIZE))
    assert (too_big.status_code, fine.status_code) == (413, 200)


async def test_sessions_past_the_limit_get_503() -> None:
    app = small_server().http_app(max_sessions=2)
    async with serving(app) as base, httpx2.AsyncClient() as http:
        statuses = [(await http.post(base + "/mcp", headers=HEADERS, json=INITIALIZE)).status_code for _ in range(3)]
    assert statuses == [200, 200, 503]


async def test_an_idle_session_is_closed() -> None:
    app = small_server().http_app(session_idle_timeout=0.3)
    async with serving(app) as base, httpx2.AsyncClient() as http:
        opened = await http.post(base + "/mcp", headers=HEADERS, json=INITIALIZE)
        session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        alive = await http.post(base + "/mcp", headers={**HEADERS, **session}, json=ping)
        await anyio.sleep(1.5)
        expired = await http.post(base + "/mcp", headers={**HEADERS, **session}, json=ping)
    assert alive.status_code == 200 and expired.status_code == 404


async def test_trickling_connections_cannot_take_every_slot_unanswered() -> None:
    app = small_server().http_app()
    async with serving(app, limit_concurrency=2) as base:
        port = int(base.rsplit(":", 1)[1])
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        try:
            for sock in slow:
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
            await anyio.sleep(0.2)
            async with httpx2.AsyncClient() as http:
                response = await http.post(base + "/mcp", headers=HEADERS, json=INITIALIZE)
        finally:
            for sock in slow:
                sock.close()
    assert response.status_code == 503  # refused at once, not left waiting behind the slow ones
