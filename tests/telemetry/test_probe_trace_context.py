"""Trace context of a raw HTTP client that sends both a `traceparent` header and `_meta`: a valid
`_meta` context wins, an invalid one leaves the header's in charge."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from tests.telemetry.conftest import Spans
from toolweave import Server

HEADER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
META = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.mark.parametrize(
    ("meta", "trace_id"),
    [(META, "0af7651916cd43dd8448eb211c80319c"), ("00-not-a-context", "4bf92f3577b34da6a3ce929d0e0e4736")],
    ids=["valid meta", "invalid meta"],
)
async def test_the_header_parents_the_call_unless_meta_has_a_valid_context(
    spans: Spans, meta: str, trace_id: str
) -> None:
    server = Server("plain")
    server.add_tool(lambda: "pong", name="ping")
    params: dict[str, Any] = {"name": "ping", "arguments": {}, "_meta": {"traceparent": meta}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    async with serving(server.http_app(json_response=True)) as base, httpx2.AsyncClient() as http:
        opened = await http.post(base + "/mcp", headers=RAW_HEADERS, json=RAW_INITIALIZE)
        session = {
            **RAW_HEADERS,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(base + "/mcp", headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = await http.post(base + "/mcp", headers={**session, "traceparent": HEADER}, json=call)
    assert answer.status_code == 200
    assert format(spans.named("tools/call ping").context.trace_id, "032x") == trace_id
