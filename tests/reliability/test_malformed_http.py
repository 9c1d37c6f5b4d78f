"""Over streamable HTTP every malformed message gets the JSON-RPC error it gets over stdio, alike
on a 2026-07-28 request, on a handshake-era session and on the POST that would open one, and the
server keeps serving after each."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest

from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from toolweave.mcp.malformed import body_error

from .http import META, MODERN, call
from .malformed_cases import CASES, INVALID_REQUEST, NO_ANSWER, OVERSIZED, Case
from .servers.target import server

MALFORMED = [case for case in CASES if not case.well_formed]
CANARY = "sk-canary-1234"
ERAS = ["2026-07-28", "handshake session"]


@dataclass
class Wire:
    """How one protocol era posts to the endpoint: its headers, and a request that shows the
    server still serves (on the same session, for the handshake era)."""

    client: httpx2.AsyncClient
    url: str
    era: str
    headers: dict[str, str]

    @classmethod
    async def open(cls, client: httpx2.AsyncClient, url: str, era: str) -> Wire:
        if era == "2026-07-28":
            return cls(client, url, era, MODERN)
        opened = await client.post(url, json=RAW_INITIALIZE, headers=RAW_HEADERS)
        session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        wire = cls(client, url, era, RAW_HEADERS | session)
        initialized = await wire.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert initialized.status_code == 202
        return wire

    async def post(self, body: bytes | AsyncIterator[bytes], method: str = "ping") -> httpx2.Response:
        routing = {"mcp-method": method} if self.era == "2026-07-28" else {}
        return await self.client.post(self.url, content=body, headers=self.headers | routing)

    async def send(self, case: Case) -> httpx2.Response:
        """`case`'s message; a valid request of a 2026-era wire carries what that era requires."""
        if self.era != "2026-07-28" or not case.well_formed or b'"method"' not in case.body:
            return await self.post(case.body)
        message = json.loads(case.body)
        params = message.setdefault("params", {})
        params["_meta"] = META
        headers = {"mcp-method": message["method"]} | ({"mcp-name": params["name"]} if "name" in params else {})
        return await self.client.post(self.url, content=json.dumps(message), headers=self.headers | headers)

    async def echo(self, text: str) -> str:
        if self.era == "2026-07-28":
            return str((await call(self.client, self.url, "echo", {"text": text}))["result"]["content"][0]["text"])
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}},
        }
        answer = reply(await self.post(json.dumps(body).encode(), "tools/call"))
        assert answer is not None
        return str(answer["result"]["content"][0]["text"])


def reply(response: httpx2.Response) -> dict[str, Any] | None:
    """The JSON-RPC message answering a POST (a JSON body or the last SSE event); None for 202."""
    if response.status_code == 202:
        assert response.content == b""
        return None
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())


def assert_refused(case: Case, response: httpx2.Response) -> None:
    """400 and `case`'s JSON-RPC error (a notification's: -32600), with its id and nothing else."""
    assert response.status_code == 400, (case.name, response.text)
    assert response.headers["content-type"] == "application/json", case.name
    answer = reply(response)
    code = INVALID_REQUEST if case.code == NO_ANSWER else case.code
    assert answer is not None and set(answer) == {"jsonrpc", "id", "error"}, (case.name, answer)
    assert (answer["jsonrpc"], answer["id"], answer["error"]["code"]) == ("2.0", case.id, code), (case.name, answer)
    assert answer["error"]["message"], case.name


def assert_served(case: Case, wire: Wire, response: httpx2.Response) -> None:
    """A valid message gets the server's own answer; a response from the client, none (a 2026-era
    wire takes none: the SDK's -32600)."""
    answer = reply(response)
    if case.code != NO_ANSWER:
        assert answer is not None and (answer["id"], answer["error"]["code"]) == (case.id, case.code), case.name
    elif wire.era == "2026-07-28":
        assert response.status_code == 400 and answer is not None and answer["error"]["code"] == INVALID_REQUEST
    else:
        assert answer is None, case.name


async def oversized() -> AsyncIterator[bytes]:
    """`OVERSIZED`'s body in chunks, with no Content-Length to refuse it by."""
    for start in range(0, len(OVERSIZED.body), 1 << 20):
        yield OVERSIZED.body[start : start + (1 << 20)]


@pytest.mark.parametrize("era", ERAS)
async def test_every_malformed_class_is_answered_as_over_stdio(era: str) -> None:
    async with serving(server.http_app()) as base, httpx2.AsyncClient(timeout=30) as client:
        wire = await Wire.open(client, f"{base}/mcp", era)
        for case in CASES:
            response = await wire.send(case)
            if case.well_formed:
                assert_served(case, wire, response)
            else:
                assert_refused(case, response)
            assert await wire.echo(case.name) == case.name, f"the server stopped serving after {case.name}"
        assert (await wire.post(OVERSIZED.body, "tools/call")).status_code == 413
        assert (await wire.post(oversized(), "tools/call")).status_code == 413
        assert await wire.echo("after") == "after"


async def test_a_malformed_post_opening_a_session_is_answered_and_opens_none() -> None:
    async with serving(server.http_app()) as base, httpx2.AsyncClient(timeout=30) as client:
        url = f"{base}/mcp"
        for case in MALFORMED:
            response = await client.post(url, content=case.body, headers=RAW_HEADERS)
            assert_refused(case, response)
            assert "mcp-session-id" not in response.headers, case.name
        assert (await client.post(url, json=RAW_INITIALIZE, headers=RAW_HEADERS)).status_code == 200


async def test_answers_over_http_never_quote_the_message() -> None:
    bodies = [
        CANARY,
        f'["{CANARY}"]',
        f'{{"jsonrpc":"2.0","id":5,"method":"ping","params":["{CANARY}"]}}',
        f'{{"jsonrpc":"1.0","id":4,"method":"{CANARY}"}}',
        f'{{"jsonrpc":"2.0","id":{{"{CANARY}":1}},"method":"ping"}}',
        f'{{"jsonrpc":"2.0","id":6,"method":"ping","params":{{"{CANARY}":"\\ud800"}}}}',
        f'{{"jsonrpc":"2.0","method":"notifications/cancelled","params":"{CANARY}"}}',
    ]
    async with serving(server.http_app()) as base, httpx2.AsyncClient(timeout=30) as client:
        for era in ERAS:
            wire = await Wire.open(client, f"{base}/mcp", era)
            for body in bodies:
                response = await wire.post(body.encode())
                assert response.status_code == 400, (era, body)
                assert CANARY not in response.text, (era, response.text)


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":"a","method":"ping","params":null}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\\ud83d\\ude00"}}}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","id":3,"result":{}}',
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"failed"}}',
        b'{"jsonrpc":"2.0","id":4,"method":"ping","extra":true}',
        b' {"jsonrpc":"2.0","id":5,"method":"ping","params":{"deep":' + b"[" * 100 + b"]" * 100 + b"}}\n",
    ],
)
def test_a_valid_message_is_handed_to_the_sdk_untouched(body: bytes) -> None:
    assert body_error(body) is None
