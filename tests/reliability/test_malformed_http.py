"""Over streamable HTTP every malformed message gets a JSON-RPC error, and the server keeps serving."""

from __future__ import annotations

import httpx2

from tests.serving import serving
from toolweave.mcp.malformed import top_level_id

from .http import MODERN, call
from .malformed_cases import CASES, OVERSIZED, PARSE
from .servers.target import server


async def echo(client: httpx2.AsyncClient, url: str, text: str) -> str:
    return str((await call(client, url, "echo", {"text": text}))["result"]["content"][0]["text"])


async def test_every_malformed_class_is_answered_over_http() -> None:
    async with serving(server.http_app()) as base, httpx2.AsyncClient(timeout=30) as client:
        url = f"{base}/mcp"
        for case in CASES:
            response = await client.post(url, content=case.body, headers=MODERN | {"mcp-method": "ping"})
            reply = response.json()
            assert response.status_code == 400, (case.name, response.text)
            readable_id = top_level_id(case.body.decode("utf-8", "replace"))
            assert reply["jsonrpc"] == "2.0" and reply["id"] in (None, case.id, readable_id), case.name
            if case.code == PARSE and not case.lenient_http:
                assert reply["error"]["code"] == PARSE, case.name
            else:
                assert reply["error"]["code"] in (-32700, -32600, -32601, -32602), case.name
            assert await echo(client, url, case.name) == case.name
        response = await client.post(url, content=OVERSIZED.body, headers=MODERN | {"mcp-method": "tools/call"})
        assert response.status_code == 413
        assert await echo(client, url, "after") == "after"
