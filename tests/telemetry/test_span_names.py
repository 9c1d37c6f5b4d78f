"""A client cannot make span names: a method the server does not serve names its span `(unknown
method)`, and a `name` in the params of a method that names nothing is left out of it, in both
protocol eras (the SDK names the span `<method> <params.name>` for any of them); nor huge spans:
what the span copies from the message is cut after 128 characters."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import anyio
import httpx2
import mcp.types as mt
import pytest
from mcp import Client, MCPError
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind

from tests.reliability.http import META as MODERN_META
from tests.reliability.http import MODERN
from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from tests.telemetry.conftest import Spans
from toolweave import Server


class Send(Protocol):
    def __call__(
        self, method: str, params: dict[str, Any], notify: bool, request_id: Any = 7
    ) -> Awaitable[httpx2.Response]: ...


RANDOM = "random/8f3a1c" + "m" * 200
COMPLETE = {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "who", "value": "a"}}


def greeter() -> Server:
    server = Server("plain")
    server.add_tool(lambda: "pong", name="ping")

    @server.prompt
    def greet(who: str) -> str:
        return f"hi {who}"

    return server


@asynccontextmanager
async def raw_sender(era: str) -> AsyncIterator[Send]:
    """Sends one raw JSON-RPC message (a request or, with `notify`, a notification) to a served server."""
    async with serving(greeter().http_app(json_response=True)) as base, httpx2.AsyncClient() as http:
        url = base + "/mcp"
        if era == "2025-11-25":
            opened = await http.post(url, headers=RAW_HEADERS, json=RAW_INITIALIZE)
            headers = {
                **RAW_HEADERS,
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": era,
            }
            await http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            meta: dict[str, Any] = {}
        else:
            headers, meta = dict(MODERN), dict(MODERN_META)

        async def send(method: str, params: dict[str, Any], notify: bool, request_id: Any = 7) -> httpx2.Response:
            message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": {**params, "_meta": meta}}
            if not notify:
                message["id"] = request_id
            return await http.post(url, content=json.dumps(message), headers={**headers, "mcp-method": method})

        yield send


HANDSHAKE = ("initialize", "notifications/initialized")


def served(spans: Spans) -> list[ReadableSpan]:
    """The server spans of the messages a test sent (not of the handshake's)."""
    return [
        span
        for span in spans.all()
        if span.kind is SpanKind.SERVER and span.attributes and span.attributes["mcp.method.name"] not in HANDSHAKE
    ]


def served_names(spans: Spans) -> list[str]:
    return [span.name for span in served(spans)]


async def names_of(spans: Spans, count: int) -> list[str]:
    """`served_names` once there are `count` (a notification's span ends after its 202)."""
    with anyio.fail_after(10):
        while len(served_names(spans)) < count:  # noqa: ASYNC110 - ended by the SDK, after the answer
            await anyio.sleep(0.01)
    return served_names(spans)


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_method_the_server_does_not_serve_names_no_span(spans: Spans, era: str) -> None:
    async with raw_sender(era) as send:
        answers = [await send(RANDOM, {"name": "n1"}, False), await send(RANDOM + "2", {}, False)]
    assert [answer.json()["error"]["code"] for answer in answers] == [-32601, -32601]
    assert await names_of(spans, 2) == ["(unknown method)"] * 2


async def test_a_notification_the_server_does_not_serve_names_no_span(spans: Spans) -> None:
    async with raw_sender("2025-11-25") as send:
        answer = await send("notifications/" + RANDOM, {"name": "n1"}, True)
        assert answer.status_code == 202
        assert await names_of(spans, 1) == ["(unknown method)"]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_name_in_the_params_of_a_method_that_names_nothing_is_no_part_of_its_span_name(
    spans: Spans, era: str
) -> None:
    async with raw_sender(era) as send:
        answer = await send("completion/complete", {**COMPLETE, "name": "n-per-request-1"}, False)
    assert "result" in answer.json(), answer.text
    assert await names_of(spans, 1) == ["completion/complete"]


async def test_tool_and_prompt_calls_keep_their_target_in_the_span_name(spans: Spans) -> None:
    async with Client(greeter().as_mcp()) as client:
        await client.call_tool("ping", {})
        await client.get_prompt("greet", {"who": "ada"})
        await client.complete(mt.PromptReference(type="ref/prompt", name="greet"), {"name": "who", "value": "a"})
    names = {span.name for span in spans.all()}
    assert {"tools/call ping", "prompts/get greet", "completion/complete"} <= names


LONG = "x" * 5000


def longest_text(span: ReadableSpan) -> int:
    """The longest attribute value or status description of `span`."""
    texts = [str(value) for value in (span.attributes or {}).values()] + [span.status.description or ""]
    return max(len(text) for text in texts)


async def test_a_tool_or_prompt_name_longer_than_any_is_cut_in_the_answer_and_the_span(spans: Spans) -> None:
    """The name was quoted whole in the -32602 message, which the SDK's span records as its status,
    and in `gen_ai.tool.name`: a request made a span as large as the request."""
    async with Client(greeter().as_mcp()) as client:
        with pytest.raises(MCPError) as tool:
            await client.call_tool(LONG, {})
        with pytest.raises(MCPError) as prompt:
            await client.get_prompt(LONG)
    assert str(tool.value) == f"Unknown tool: {'x' * 128}…"
    assert str(prompt.value) == f"Unknown prompt: {'x' * 128}…"
    served = [
        span for span in spans.all() if span.kind is SpanKind.SERVER and span.name in ("tools/call", "prompts/get")
    ]
    assert len(served) == 2
    assert [longest_text(span) for span in served] == [len(str(tool.value)), len(str(prompt.value))]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_long_method_or_request_id_is_cut_in_the_spans_attributes(spans: Spans, era: str) -> None:
    async with raw_sender(era) as send:
        unknown = await send(RANDOM + LONG, {}, False, 7)
        listed = await send("tools/list", {}, False, LONG)
    assert unknown.json()["error"]["code"] == -32601
    assert [tool["name"] for tool in listed.json()["result"]["tools"]] == ["ping"]
    assert [longest_text(span) for span in served(spans)] == [129, 129]
