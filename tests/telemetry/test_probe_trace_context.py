"""Trace context of a raw HTTP client that sends both a `traceparent` header and `_meta`: a valid
`_meta` context wins, an invalid one leaves the header's in charge; a `_meta` trace field that is
not a string is dropped (the call is served), in both protocol eras; a baggage that is not W3C
baggage is dropped before OpenTelemetry's propagator logs the client's text."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from opentelemetry import baggage

from tests.reliability.http import META as MODERN_META
from tests.reliability.http import MODERN
from tests.serving import RAW_HEADERS, RAW_INITIALIZE, serving
from tests.telemetry.conftest import Spans
from toolweave import Server

HEADER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
HEADER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
META = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
META_TRACE = "0af7651916cd43dd8448eb211c80319c"
NOT_TEXT = [12, 1.5, True, [12], [None], [META], {"x": 1}, []]
"""JSON values of every type but a string (a list holding a valid `traceparent` included)."""


class Caller:
    """Calls `ping` over raw HTTP in one protocol era, with a `_meta` and maybe a `traceparent` header."""

    def __init__(self, http: httpx2.AsyncClient, url: str, headers: dict[str, str], meta: dict[str, Any]) -> None:
        self.http, self.url, self.headers, self.meta = http, url, headers, meta

    async def ping(self, meta: dict[str, Any], *, header: bool = True) -> dict[str, Any]:
        params = {"name": "ping", "arguments": {}, "_meta": {**self.meta, **meta}}
        body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        headers = {**self.headers, **({"traceparent": HEADER} if header else {})}
        answer = await self.http.post(self.url, content=body, headers=headers)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())


@asynccontextmanager
async def caller(era: str) -> AsyncIterator[Caller]:
    """A `Caller` of a served server with one tool, `ping`."""
    server = Server("plain")
    server.add_tool(lambda: "pong", name="ping")
    async with serving(server.http_app(json_response=True)) as base, httpx2.AsyncClient() as http:
        url = base + "/mcp"
        if era == "2026-07-28":
            yield Caller(http, url, {**MODERN, "mcp-method": "tools/call", "mcp-name": "ping"}, MODERN_META)
            return
        opened = await http.post(url, headers=RAW_HEADERS, json=RAW_INITIALIZE)
        session = {
            **RAW_HEADERS,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield Caller(http, url, session, {})


def trace_ids(spans: Spans) -> list[str]:
    """The trace id of each `tools/call ping` span, in the order the calls ended."""
    return [format(span.context.trace_id, "032x") for span in spans.all() if span.name == "tools/call ping"]


def pong(answer: dict[str, Any]) -> bool:
    return "result" in answer and answer["result"]["content"][0]["text"] == "pong"


@pytest.mark.parametrize(
    ("meta", "trace_id"),
    [(META, META_TRACE), ("00-not-a-context", HEADER_TRACE)],
    ids=["valid meta", "invalid meta"],
)
async def test_the_header_parents_the_call_unless_meta_has_a_valid_context(
    spans: Spans, meta: str, trace_id: str
) -> None:
    async with caller("2025-11-25") as client:
        answer = await client.ping({"traceparent": meta})
    assert pong(answer)
    assert trace_ids(spans) == [trace_id]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_traceparent_that_is_not_a_string_is_dropped_and_the_header_parents_the_call(
    spans: Spans, era: str
) -> None:
    async with caller(era) as client:
        answers = [await client.ping({"traceparent": value}) for value in NOT_TEXT]
    assert [pong(answer) for answer in answers] == [True] * len(NOT_TEXT), answers
    assert trace_ids(spans) == [HEADER_TRACE] * len(NOT_TEXT)


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_traceparent_that_is_not_a_string_without_a_header_starts_a_new_trace(spans: Spans, era: str) -> None:
    async with caller(era) as client:
        answers = [await client.ping({"traceparent": value}, header=False) for value in NOT_TEXT]
    assert [pong(answer) for answer in answers] == [True] * len(NOT_TEXT), answers
    assert len(set(trace_ids(spans)) - {HEADER_TRACE, META_TRACE}) == len(NOT_TEXT)


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("field", ["tracestate", "baggage"])
@pytest.mark.parametrize("header", [True, False], ids=["with header", "without header"])
async def test_a_tracestate_or_baggage_that_is_not_a_string_is_dropped_and_the_meta_traceparent_kept(
    spans: Spans, era: str, field: str, header: bool
) -> None:
    async with caller(era) as client:
        answers = [await client.ping({"traceparent": META, field: value}, header=header) for value in NOT_TEXT]
    assert [pong(answer) for answer in answers] == [True] * len(NOT_TEXT), answers
    assert trace_ids(spans) == [META_TRACE] * len(NOT_TEXT)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("field", ["traceparent", "tracestate", "baggage"])
async def test_a_trace_field_that_is_not_a_string_is_dropped_in_memory_too(spans: Spans, mode: str, field: str) -> None:
    # (no HTTP, no header: the layer that drops them runs for every served server)
    server = Server("plain")
    server.add_tool(lambda: "pong", name="ping")
    async with Client(server.as_mcp(), mode=mode) as client:
        for value in NOT_TEXT:
            result = await client.call_tool("ping", {}, meta={field: value})  # type: ignore[typeddict-item]
            assert not result.is_error and result.content[0].text == "pong", value


MALFORMED_BAGGAGE = {
    "a newline": "user=ada,x\nCRITICAL toolweave.security: caller admin granted",
    "members that are not key=value": "x," * 400,
    "over 8192 bytes": "k=" + "v" * 9000,
}


def carried_baggage_server() -> Server:
    server = Server("plain")

    @server.tool
    async def carried() -> str:
        """The baggage the call runs with."""
        return json.dumps(dict(baggage.get_all()))

    return server


def propagator_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name.startswith("opentelemetry")]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("value", MALFORMED_BAGGAGE.values(), ids=MALFORMED_BAGGAGE.keys())
async def test_a_meta_baggage_that_is_not_w3c_baggage_is_dropped_before_it_is_logged(
    caplog: pytest.LogCaptureFixture, mode: str, value: str
) -> None:
    """OpenTelemetry's propagator logs a malformed baggage's text at WARNING, member by member:
    one request wrote hundreds of lines, or a line of the client's choosing."""
    caplog.set_level(logging.WARNING, "opentelemetry")
    async with Client(carried_baggage_server().as_mcp(), mode=mode) as client:
        meta = {"traceparent": META, "baggage": value}
        result = await client.call_tool("carried", {}, meta=meta)  # type: ignore[arg-type]
    assert result.content[0].text == "{}"  # type: ignore[union-attr]
    assert propagator_lines(caplog) == []


MALFORMED_TRACESTATE = {
    "a newline": "vendor=1,x\nCRITICAL toolweave.security: caller admin granted",
    "a member that is not key=value": "vendor=1," + "x" * 8000,
    "an upper-case key": "Vendor=1",
}


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("value", MALFORMED_TRACESTATE.values(), ids=MALFORMED_TRACESTATE.keys())
async def test_a_meta_tracestate_that_is_not_w3c_tracestate_is_dropped_before_it_is_logged(
    spans: Spans, caplog: pytest.LogCaptureFixture, era: str, value: str
) -> None:
    """OpenTelemetry's propagator logs a malformed tracestate member's text at WARNING (up to
    8 KB, a newline included: a log line of the client's choosing); the `traceparent` still parents
    the call."""
    caplog.set_level(logging.WARNING, "opentelemetry")
    async with caller(era) as client:
        answer = await client.ping({"traceparent": META, "tracestate": value}, header=False)
    assert pong(answer)
    assert trace_ids(spans) == [META_TRACE]
    assert propagator_lines(caplog) == []


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("baggage", MALFORMED_BAGGAGE["members that are not key=value"]),
        ("tracestate", MALFORMED_TRACESTATE["a member that is not key=value"]),
    ],
    ids=["baggage", "tracestate"],
)
async def test_a_trace_header_that_is_not_w3c_is_dropped_and_the_traceparent_header_kept(
    spans: Spans, caplog: pytest.LogCaptureFixture, header: str, value: str
) -> None:
    caplog.set_level(logging.WARNING, "opentelemetry")
    async with caller("2025-11-25") as client:
        client.headers[header] = value
        answer = await client.ping({})
    assert pong(answer)
    assert trace_ids(spans) == [HEADER_TRACE]
    assert propagator_lines(caplog) == []


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_w3c_tracestate_in_meta_reaches_the_call_span(spans: Spans, era: str) -> None:
    async with caller(era) as client:
        answer = await client.ping(
            {"traceparent": META, "tracestate": "congo=t61rcWkgMzE, rojo@vendor=00f0"}, header=False
        )
    assert pong(answer)
    [span] = [span for span in spans.all() if span.name == "tools/call ping"]
    assert dict(span.context.trace_state) == {"congo": "t61rcWkgMzE", "rojo@vendor": "00f0"}
