"""Without an OpenTelemetry SDK nothing is added to the call path (checked in a fresh process:
this one has the SDK installed by the other telemetry tests)."""

from __future__ import annotations

from tests.conftest import run_python

SCRIPT = """
import anyio, mcp
from toolweave import Server
from toolweave.mcp.adapter import adapter_for

billing = Server("billing")
billing.add_tool(lambda a: a, name="echo")
gateway = Server("gateway")
gateway.mount(billing, prefix="billing")

async def main():
    async with mcp.Client(gateway.as_mcp()) as client:
        result = await client.call_tool("billing_echo", {"a": "x"})
        observer = adapter_for(gateway).observer
    mounted = gateway.catalog.get("billing_echo").tool.run
    print(result.is_error, observer, mounted is billing.catalog.get("echo").tool.run)

anyio.run(main)
"""


def test_no_observer_and_no_mount_wrapper_without_an_sdk() -> None:
    done = run_python(SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "None", "True"]


MALFORMED_TRACE_CONTEXT = """
import json, anyio, httpx2
from tests.reliability.http import META, MODERN
from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from toolweave import Server

server = Server("plain")
server.add_tool(lambda: "pong", name="ping")
HEADER = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}

async def main():
    async with serving(server.http_app(json_response=True)) as base, httpx2.AsyncClient() as http:
        url = base + "/mcp"
        opened = await http.post(url, headers=RAW_HEADERS, json=RAW_INITIALIZE)
        session = {**RAW_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
        session["mcp-protocol-version"] = "2025-11-25"
        await http.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        modern = {**MODERN, "mcp-method": "tools/call", "mcp-name": "ping"}
        for headers, meta in [(session, {}), (modern, META)]:
            for field in ("traceparent", "tracestate", "baggage"):
                params = {"name": "ping", "arguments": {}, "_meta": {**meta, field: 12}}
                body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
                answer = (await http.post(url, content=json.dumps(body), headers={**headers, **HEADER})).json()
                print(answer.get("result", answer)["content"][0]["text"] if "result" in answer else answer)

anyio.run(main)
"""


def test_trace_context_fields_that_are_not_strings_are_dropped_without_an_sdk_too() -> None:
    """A number as `_meta.traceparent`, `tracestate` or `baggage`, with a `traceparent` header: the
    call is served in both eras (the propagators run without an SDK too)."""
    done = run_python(MALFORMED_TRACE_CONTEXT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pong"] * 6, done.stdout
