"""HTTP limits take effect: body size, sessions, idle sessions, concurrent connections, idle
keep-alive connections; the uvicorn ones through toolweave's own `serve_http` and `serve` flags."""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2

from tests.acceptance.cli_helpers import FIXTURES
from tests.serving import RAW_HEADERS as HEADERS
from tests.serving import RAW_INITIALIZE as INITIALIZE
from tests.serving import serving, toolweave_served
from toolweave import Server
from toolweave.mcp.serve import serve_http


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


@asynccontextmanager
async def toolweave_serving(server: Server, **options: Any) -> AsyncIterator[str]:
    """`http://127.0.0.1:<port>` where `serve_http(server, **options)` listens, until the block
    ends; then stopped as an operator stops it, with SIGTERM (cancelling it would skip uvicorn's
    shutdown and leave the listening socket open)."""
    assert threading.current_thread() is threading.main_thread()  # where serve_http receives signals
    listening: list[str] = []
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: serve_http(server, port=0, on_ready=listening.append, **options))
        with anyio.fail_after(20):
            while not listening:  # noqa: ASYNC110 - on_ready is a plain callback
                await anyio.sleep(0.01)
        try:
            yield listening[0].removesuffix("/mcp")
        finally:
            signal.raise_signal(signal.SIGTERM)


def trickle(port: int, count: int) -> list[socket.socket]:
    """`count` connections that each start a request and never finish its headers."""
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    for sock in slow:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return slow


async def test_trickling_connections_cannot_take_every_slot_unanswered() -> None:
    async with toolweave_serving(small_server(), limit_concurrency=2) as base:
        slow = trickle(int(base.rsplit(":", 1)[1]), 2)
        try:
            await anyio.sleep(0.2)
            async with httpx2.AsyncClient() as http:
                response = await http.post(base + "/mcp", headers=HEADERS, json=INITIALIZE)
        finally:
            for sock in slow:
                sock.close()
    assert response.status_code == 503  # refused at once, not left waiting behind the slow ones


def test_serve_limit_concurrency_answers_503_past_the_limit() -> None:
    with toolweave_served(FIXTURES / "basic.yaml", "--limit-concurrency", "2") as server:
        slow = trickle(server.port, 2)
        try:
            time.sleep(0.2)
            response = httpx2.post(server.url + "/mcp", headers=HEADERS, json=INITIALIZE)
        finally:
            for sock in slow:
                sock.close()
    assert response.status_code == 503


def test_serve_timeout_keep_alive_closes_an_idle_connection() -> None:
    with (
        toolweave_served(FIXTURES / "basic.yaml", "--timeout-keep-alive", "1") as server,
        socket.create_connection(("127.0.0.1", server.port)) as sock,
    ):
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(10)
        answered = b""
        while not answered.endswith(b"}"):  # the status line, then the JSON body
            answered += sock.recv(4096)
        idle = time.monotonic()
        closed = sock.recv(4096) == b""  # blocks until the server closes the connection
        waited = time.monotonic() - idle
    assert answered.startswith(b"HTTP/1.1 200") and closed
    assert waited < 3  # after about 1 s, not the default 5 s
