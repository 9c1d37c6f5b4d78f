"""Raw 2026-era JSON-RPC over streamable HTTP (one POST per request, no session)."""

from __future__ import annotations

import json
from typing import Any

import httpx2

MODERN = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


async def call(
    client: httpx2.AsyncClient, url: str, name: str, arguments: dict[str, Any], request_id: int = 1
) -> dict[str, Any]:
    """The JSON-RPC answer to a `tools/call` (a result or an error)."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": META},
    }
    headers = MODERN | {"mcp-method": "tools/call", "mcp-name": name}
    response = await client.post(url, content=json.dumps(body), headers=headers)
    text = response.text
    if text.startswith(("event:", "data:")) or "\ndata:" in text:
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())
