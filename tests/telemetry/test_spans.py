"""Traces: one trace from the client through mounts and a remote toolweave upstream, middleware
decisions on the call span, and no hidden or injected value anywhere in it."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp
import mcp.types as mt
import pytest
from mcp.shared.message import SessionMessage
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from tests.conftest import subprocess_env
from tests.serving import PORT, serving, spawned
from tests.serving import RAW_HEADERS as HEADERS
from tests.serving import RAW_INITIALIZE as INITIALIZE
from tests.telemetry.conftest import Metrics, Spans
from toolweave import RemoteServer, Server
from toolweave.middleware import RateLimit, Retry, Timeout
from toolweave.telemetry.withheld import SentArguments, restored
from toolweave.transforms import (
    Arg,
    InjectArgs,
    PromptsAsTools,
    ResourcesAsTools,
    SearchTools,
    Secret,
    TransformArgs,
)

HERE = Path(__file__).resolve().parent
LEAKY = str(HERE.parent / "servers" / "leaky_upstream.py")
CANARY = "canary-7f3a9c1e-secret"
ARGUMENT_CANARY = "canary-argument-5d2b"
INJECTED = "plainconstant-canary-AAAA"
HIDDEN = "hiddendefault-canary-BBBB"
CALLERS = "callerarg-canary-CCCC"


def traced_upstream(spans_file: Path, **options: Any) -> RemoteServer:
    env = subprocess_env(SPANS_FILE=str(spans_file))
    return RemoteServer.stdio(sys.executable, [str(HERE / "traced_upstream.py")], env=env, **options)


async def upstream_spans(spans_file: Path, name: str) -> list[dict[str, Any]]:
    """The upstream process's spans once one named `name` was written (it exports as spans end)."""
    with anyio.fail_after(10):
        while True:
            path = anyio.Path(spans_file)
            lines = (await path.read_text()).splitlines() if await path.exists() else []
            found = [json.loads(line) for line in lines]
            if any(span["name"] == name for span in found):
                return found
            await anyio.sleep(0.05)


def hex_id(value: int, width: int) -> str:
    return f"0x{value:0{width}x}"


def child_of(span: ReadableSpan, parent: ReadableSpan) -> bool:
    return span.parent is not None and span.parent.span_id == parent.context.span_id


async def test_a_call_through_a_mount_and_a_remote_upstream_is_one_trace(spans: Spans, tmp_path: Path) -> None:
    spans_file = tmp_path / "upstream-spans.jsonl"
    billing = Server("billing")
    billing.mount(traced_upstream(spans_file), prefix="up")
    gateway = Server("gateway")
    gateway.mount(billing, prefix="billing")

    async with mcp.Client(gateway.as_mcp()) as client:
        result = await client.call_tool("billing_up_echo", {"text": "hi"})
    assert not result.is_error

    served = spans.named("tools/call billing_up_echo")
    outer, inner = spans.named("mount billing"), spans.named("mount up")
    upstream = spans.named("tools/call echo")
    upstream_send = spans.named("MCP send tools/call echo")
    assert [served.kind, outer.kind, upstream.kind] == [SpanKind.SERVER, SpanKind.INTERNAL, SpanKind.CLIENT]
    assert served.parent is None and child_of(outer, served) and child_of(inner, outer)
    assert child_of(upstream, inner) and child_of(upstream_send, upstream)
    assert len({span.context.trace_id for span in (served, outer, inner, upstream, upstream_send)}) == 1
    assert served.attributes is not None and upstream.attributes is not None and outer.attributes is not None
    assert served.attributes["toolweave.origin"] == "billing/up"
    assert served.attributes["toolweave.tool.original_name"] == "echo"
    assert served.attributes["toolweave.outcome"] == "ok"
    assert outer.attributes["toolweave.mount.prefix"] == "billing"
    assert outer.attributes["gen_ai.tool.name"] == "up_echo"
    assert upstream.attributes["toolweave.upstream"] == "up"
    assert upstream.attributes["gen_ai.tool.name"] == "echo"
    assert upstream.attributes["network.transport"] == "pipe"

    remote = await upstream_spans(spans_file, "tools/call echo")
    remote_served = next(span for span in remote if span["name"] == "tools/call echo")
    assert remote_served["kind"] == "SpanKind.SERVER"
    assert remote_served["context"]["trace_id"] == hex_id(served.context.trace_id, 32)
    assert remote_served["parent_id"] == hex_id(upstream_send.context.span_id, 16)


async def test_a_rate_limited_call_says_why_on_its_span(spans: Spans) -> None:
    server = Server("limited", middleware=[RateLimit(rate=0.001, burst=1)])
    server.add_tool(lambda: "pong", name="ping")

    async with mcp.Client(server.as_mcp()) as client:
        await client.call_tool("ping", {})
        refused = await client.call_tool("ping", {})

    assert refused.is_error
    pings = [span for span in spans.all() if span.name == "tools/call ping"]
    first, second = sorted(pings, key=lambda span: span.start_time or 0)
    assert second.attributes is not None and second.attributes["toolweave.outcome"] == "rejected"
    assert [event.name for event in second.events] == ["toolweave.rate_limited"]
    assert (second.events[0].attributes or {})["toolweave.retry_after"] > 0
    assert first.attributes is not None and first.attributes["toolweave.outcome"] == "ok" and not first.events


async def test_a_timed_out_call_says_why_on_its_span(spans: Spans) -> None:
    server = Server("slow", middleware=[Timeout(default=0.1)])

    @server.tool
    async def nap() -> str:
        await anyio.sleep(5)
        return "rested"

    async with mcp.Client(server.as_mcp()) as client:
        result = await client.call_tool("nap", {})

    assert result.is_error
    served = spans.named("tools/call nap")
    assert served.attributes is not None and served.attributes["toolweave.outcome"] == "timeout"
    assert [(event.name, dict(event.attributes or {})) for event in served.events] == [
        ("toolweave.timeout", {"toolweave.timeout": 0.1})
    ]


async def test_a_retried_call_records_each_retry(spans: Spans) -> None:
    server = Server("flaky", middleware=[Retry(attempts=3, backoff=0.001, jitter=0)])
    failures = [ConnectionError("first"), ConnectionError("second")]

    @server.tool(annotations={"idempotentHint": True})
    def fetch() -> str:
        if failures:
            raise failures.pop(0)
        return "fetched"

    async with mcp.Client(server.as_mcp()) as client:
        result = await client.call_tool("fetch", {})

    assert not result.is_error
    served = spans.named("tools/call fetch")
    retries = [dict(event.attributes or {}) for event in served.events if event.name == "toolweave.retry"]
    attempts = [(retry["toolweave.attempt"], retry["error.type"]) for retry in retries]
    assert attempts == [(1, "ConnectionError"), (2, "ConnectionError")]
    assert served.attributes is not None and served.attributes["toolweave.outcome"] == "ok"


THROUGH = {  # how the client reaches the failing function: (transform, tool, arguments)
    "direct": (None, "explode", {}),
    "through-call_tool": (SearchTools(), "call_tool", {"name": "explode"}),
    "through-get_prompt": (PromptsAsTools(), "get_prompt", {"name": "exploding"}),
    "through-read_resource": (ResourcesAsTools(), "read_resource", {"uri": "docs://exploding"}),
}


@pytest.mark.parametrize("through", THROUGH.values(), ids=THROUGH.keys())
async def test_a_masked_failure_records_its_incident_not_its_message(
    spans: Spans, recorded: Metrics, through: tuple[Any, str, dict[str, Any]]
) -> None:
    """Called directly, or through a tool of a catalog transform, whose answer is the failure's."""
    server = Server("broken")

    @server.tool
    def explode() -> str:
        raise KeyError("the secret detail")

    server.add_prompt(explode, name="exploding")
    server.add_resource(explode, uri="docs://exploding")
    transform, name, arguments = through
    if transform is not None:
        server.add_transform(transform)
    async with mcp.Client(server.as_mcp()) as client:
        result = await client.call_tool(name, arguments)

    served = spans.named(f"tools/call {name}")
    assert served.attributes is not None and served.attributes["toolweave.outcome"] == "error"
    incident = served.attributes["toolweave.incident"]
    assert f"(incident {incident})" in result.content[0].text  # type: ignore[union-attr]
    assert "the secret detail" not in json.dumps(span_text(served))
    point = {"gen_ai.tool.name": name, "toolweave.origin": "local", "toolweave.outcome": "error"}
    assert recorded.value("toolweave.tool.calls", **point) == 1


def span_text(span: ReadableSpan) -> list[Any]:
    """Everything a span says: name, attributes, events, status, links."""
    return [
        span.name,
        dict(span.attributes or {}),
        [(event.name, dict(event.attributes or {})) for event in span.events],
        span.status.description,
        [dict(link.attributes or {}) for link in span.links],
    ]


async def test_no_hidden_or_injected_value_and_no_argument_value_appears_in_any_span(
    spans: Spans, tmp_path: Path
) -> None:
    spans_file = tmp_path / "upstream-spans.jsonl"
    gateway = Server("gateway", middleware=[Retry(attempts=2, backoff=0.001, only_safe=False)])
    gateway.mount(traced_upstream(spans_file), prefix="up")
    gateway.add_transform(InjectArgs(token=Secret(CANARY)), tools=["up_echo", "up_leak"])

    @gateway.tool
    def local(text: str, token: str) -> str:
        raise RuntimeError(f"{text} failed with {token}")

    gateway.add_transform(InjectArgs(token=Secret(CANARY)), tools="local")

    async with mcp.Client(gateway.as_mcp()) as client:
        echoed = await client.call_tool("up_echo", {"text": ARGUMENT_CANARY})
        leaked = await client.call_tool("up_leak", {})
        failed = await client.call_tool("local", {"text": ARGUMENT_CANARY})
        spoofed = await client.call_tool("up_echo", {"text": "x", "token": CANARY})

    # the upstream got the caller's text and the injected token, and said so without the token
    assert echoed.content[0].text == f"{ARGUMENT_CANARY} ({len(CANARY)}-character token)"  # type: ignore[union-attr]
    assert leaked.is_error and failed.is_error and spoofed.is_error
    remote = await upstream_spans(spans_file, "tools/call leak")
    names = {span.name for span in spans.all()}
    assert {"tools/call up_echo", "tools/call up_leak", "tools/call local", "tools/call echo"} <= names
    everything = json.dumps([span_text(span) for span in spans.all()], default=str) + json.dumps(remote)
    assert CANARY not in everything
    assert ARGUMENT_CANARY not in everything


async def test_trace_context_in_the_request_meta_parents_the_call(spans: Spans) -> None:
    server = Server("plain")
    server.add_tool(lambda: "pong", name="ping")
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    async with mcp.Client(server.as_mcp()) as client:
        await client.call_tool("ping", {}, meta={"traceparent": parent})  # type: ignore[typeddict-unknown-key]

    served = spans.named("tools/call ping")
    assert hex_id(served.context.trace_id, 32) == "0x0af7651916cd43dd8448eb211c80319c"
    assert served.status.status_code is not StatusCode.ERROR


async def test_trace_context_in_http_headers_parents_the_call(spans: Spans) -> None:
    server = Server("plain")
    server.add_tool(lambda: "pong", name="ping")
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ping", "arguments": {}}}
    async with serving(server.http_app(json_response=True)) as base, httpx2.AsyncClient() as http:
        opened = await http.post(base + "/mcp", headers=HEADERS, json=INITIALIZE)
        session = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(base + "/mcp", headers=session, json=initialized)
        answer = await http.post(base + "/mcp", headers={**session, "traceparent": parent}, json=call)
    assert answer.status_code == 200 and answer.json()["result"]["content"][0]["text"] == "pong"
    served = spans.named("tools/call ping")
    assert hex_id(served.context.trace_id, 32) == "0x4bf92f3577b34da6a3ce929d0e0e4736"
    assert served.parent is not None and served.parent.span_id == 0x00F067AA0BA902B7


async def test_a_mounted_servers_middleware_says_why_on_its_mount_span(spans: Spans) -> None:
    billing = Server("billing", middleware=[RateLimit(rate=0.001, burst=1)])
    billing.add_tool(lambda: "paid", name="pay")
    gateway = Server("gateway")
    gateway.mount(billing, prefix="billing")

    async with mcp.Client(gateway.as_mcp()) as client:
        await client.call_tool("billing_pay", {})
        await client.call_tool("billing_pay", {})

    served = [span for span in spans.all() if span.name == "tools/call billing_pay"][-1]
    mounted = [span for span in spans.all() if span.name == "mount billing"][-1]
    assert [event.name for event in mounted.events] == ["toolweave.rate_limited"] and not served.events
    assert mounted.attributes is not None and mounted.attributes["toolweave.outcome"] == "rejected"
    assert mounted.attributes["error.type"] == "Rejected"
    assert served.attributes is not None and served.attributes["toolweave.outcome"] == "rejected"


async def test_trace_context_reaches_an_http_upstream_in_its_request_meta(spans: Spans) -> None:
    upstream = Server("upstream")
    upstream.add_tool(lambda text: text, name="echo")
    async with serving(upstream.http_app()) as base:
        gateway = Server("gateway")
        gateway.mount(RemoteServer.http(base + "/mcp"), prefix="up")
        async with mcp.Client(gateway.as_mcp()) as client:
            await client.call_tool("up_echo", {"text": "hi"})

    served = spans.named("tools/call up_echo")
    calls = [span for span in spans.all() if span.name == "tools/call echo"]  # the gateway's and the upstream's
    client_side = next(span for span in calls if span.kind is SpanKind.CLIENT)
    server_side = next(span for span in calls if span.kind is SpanKind.SERVER)
    sent = spans.named("MCP send tools/call echo")
    assert client_side.attributes is not None and client_side.attributes["network.transport"] == "tcp"
    mounted = spans.named("mount up")
    assert child_of(mounted, served) and child_of(client_side, mounted)
    assert child_of(sent, client_side) and child_of(server_side, sent)
    assert server_side.context.trace_id == served.context.trace_id


def docs_server(name: str) -> Server:
    """A server with a prompt `greet` and a resource `docs://readme`."""
    docs = Server(name)

    @docs.prompt
    def greet(name: str) -> str:
        """Say hello."""
        return f"Hello {name}"

    @docs.resource("docs://readme")
    def readme() -> str:
        return "read me"

    return docs


async def test_prompts_and_resources_through_a_mount_run_in_its_span(spans: Spans) -> None:
    docs = docs_server("docs")

    @docs.resource("docs://broken")
    def broken() -> str:
        raise RuntimeError("disk gone")

    gateway = Server("gateway")
    gateway.mount(docs, prefix="docs")
    async with mcp.Client(gateway.as_mcp()) as client:
        prompt = (await client.list_prompts()).prompts[0].name
        await client.get_prompt(prompt, {"name": "Ada"})
        uris = sorted(str(resource.uri) for resource in (await client.list_resources()).resources)
        await client.read_resource(next(uri for uri in uris if uri.endswith("readme")))
        with pytest.raises(mcp.MCPError):
            await client.read_resource(next(uri for uri in uris if uri.endswith("broken")))

    mounted = [span for span in spans.all() if span.name == "mount docs"]
    by_target = {
        span.attributes.get("gen_ai.prompt.name") or span.attributes.get("mcp.resource.uri"): span
        for span in mounted
        if span.attributes is not None
    }
    assert set(by_target) == {"greet", "docs://readme", "docs://broken"}
    served = {span.name: span for span in spans.all() if span.kind is SpanKind.SERVER}
    assert child_of(by_target["greet"], served[f"prompts/get {prompt}"])
    assert by_target["greet"].attributes is not None and by_target["greet"].attributes["toolweave.outcome"] == "ok"
    failed = by_target["docs://broken"]
    assert failed.status.status_code is StatusCode.ERROR and failed.attributes is not None
    assert failed.attributes["error.type"] == "RuntimeError" and "toolweave.incident" in failed.attributes
    assert all("disk gone" not in str(span.attributes) + str(span.status.description) for span in spans.all())


async def test_prompts_and_resources_of_a_remote_upstream_get_client_spans(spans: Spans) -> None:
    upstream = docs_server("upstream")
    async with serving(upstream.http_app()) as base:
        gateway = Server("gateway")
        gateway.mount(RemoteServer.http(base + "/mcp"), prefix="up")
        async with mcp.Client(gateway.as_mcp()) as client:
            await client.get_prompt("up_greet", {"name": "Ada"})
            await client.read_resource("docs://up/readme")

    def client_span(name: str) -> ReadableSpan:
        return next(span for span in spans.all() if span.name == name and span.kind is SpanKind.CLIENT)

    def parent_of(span: ReadableSpan) -> ReadableSpan:
        return next(parent for parent in spans.all() if child_of(span, parent))

    prompt, read = client_span("prompts/get greet"), client_span("resources/read")  # (a URI is no span name)
    for span, served, target in (
        (prompt, "prompts/get up_greet", ("gen_ai.prompt.name", "greet")),
        (read, "resources/read", ("mcp.resource.uri", "docs://readme")),
    ):
        assert span.attributes is not None
        assert span.attributes[target[0]] == target[1] and span.attributes["toolweave.outcome"] == "ok"
        assert span.attributes["network.transport"] == "tcp" and "toolweave.upstream" in span.attributes
        mounted = parent_of(span)
        assert mounted.name == "mount up" and parent_of(mounted).name == served  # the gateway's request
        assert parent_of(mounted).kind is SpanKind.SERVER and parent_of(mounted).parent is None


async def test_an_injected_secret_an_upstream_quotes_in_a_jsonrpc_error_is_in_no_span(spans: Spans) -> None:
    gateway = Server("gateway")
    gateway.mount(RemoteServer.stdio(sys.executable, [LEAKY], env=subprocess_env()), prefix="up")
    gateway.add_transform(InjectArgs(api_key=Secret(CANARY)), tools="up_fetch_error")

    async with gateway, mcp.Client(gateway.as_mcp()) as client:
        failed = await client.call_tool("up_fetch_error", {"q": "x"})

    assert failed.is_error
    sent = [span for span in spans.all() if span.name == "MCP send tools/call fetch_error"]
    assert sent and sent[0].status.description is not None  # the SDK's span records the upstream's message
    assert "api_key=[redacted]" in sent[0].status.description
    assert CANARY not in json.dumps([span_text(span) for span in spans.all()], default=str)


@contextmanager
def leaky_upstream(transport: str) -> Iterator[RemoteServer]:
    """The leaky upstream (a bare SDK server), over stdio or streamable HTTP, as a remote to mount."""
    if transport == "stdio":
        yield RemoteServer.stdio(sys.executable, [LEAKY], env=subprocess_env())
        return
    with spawned(sys.executable, LEAKY, "--http", PORT) as upstream:
        yield RemoteServer.http(upstream.url + "/mcp")


def leaky_gateway(injected: RemoteServer, hidden: RemoteServer, **options: Any) -> Server:
    """Two leaky upstreams mounted: `injected_*` get `api_key` as a plain injected constant,
    `hidden_*` as the default of a hidden argument."""
    gateway = Server("gateway", **options)
    gateway.mount(injected, prefix="injected")
    gateway.add_transform(InjectArgs(api_key=INJECTED), tools=["injected_fetch_error", "injected_refuse"])
    gateway.mount(hidden, prefix="hidden")
    gateway.add_transform(
        TransformArgs({"api_key": Arg(hide=True, default=HIDDEN)}), tools=["hidden_fetch_error", "hidden_refuse"]
    )
    return gateway


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_no_argument_value_an_upstream_quotes_in_a_jsonrpc_error_is_in_any_span(
    spans: Spans, transport: str
) -> None:
    with leaky_upstream(transport) as injected, leaky_upstream(transport) as hidden:
        gateway = leaky_gateway(injected, hidden)
        async with gateway, mcp.Client(gateway.as_mcp()) as client:
            for tool in ("injected_fetch_error", "hidden_fetch_error", "injected_refuse", "hidden_refuse"):
                assert (await client.call_tool(tool, {"q": CALLERS})).is_error

    everything = json.dumps([span_text(span) for span in spans.all()], default=str)
    for canary in (INJECTED, HIDDEN, CALLERS):
        assert canary not in everything
    sent = {span.status.description for span in spans.all() if span.name.startswith("MCP send tools/call")}
    assert sent == {  # the SDK's span keeps what the upstream said, without the values
        "HTTP 500 for url 'https://api.example.test/v1?q=[redacted]&api_key=[redacted]'",
        "no results for q='[redacted]' with key '[redacted]'",
    }


async def test_the_client_gets_an_upstreams_error_message_as_it_was(spans: Spans) -> None:
    """Keeping the values out of the spans (the SDK is installed) changes nothing the client is told."""
    with leaky_upstream("stdio") as injected, leaky_upstream("stdio") as hidden:
        gateway = leaky_gateway(injected, hidden, mask_error_details=False)
        async with gateway, mcp.Client(gateway.as_mcp()) as client:
            failed = await client.call_tool("injected_fetch_error", {"q": CALLERS})
            refused = await client.call_tool("hidden_refuse", {"q": CALLERS})

    assert failed.content[0].text == (  # type: ignore[union-attr]
        "UpstreamFailed: upstream 'injected' failed the call to 'fetch_error' (JSON-RPC -32603): "
        f"HTTP 500 for url 'https://api.example.test/v1?q={CALLERS}&api_key={INJECTED}'"
    )
    assert refused.content[0].text == (  # type: ignore[union-attr]
        f"upstream 'hidden' refused the call to 'hidden_refuse': no results for q='{CALLERS}' with key '{HIDDEN}'"
    )


async def test_an_upstreams_refusal_of_a_prompt_reaches_no_span_and_no_client_with_its_argument_values(
    spans: Spans,
) -> None:
    """A refused prompt is the gateway's own -32602, whose message its server span records: the
    upstream's message is quoted without the prompt's argument values."""
    with leaky_upstream("stdio") as upstream:
        gateway = Server("gateway")
        gateway.mount(upstream, prefix="up")
        async with gateway, mcp.Client(gateway.as_mcp()) as client:
            with pytest.raises(mcp.MCPError) as refused:
                await client.get_prompt("up_lookup", {"q": CALLERS})

    assert refused.value.error.code == mt.INVALID_PARAMS
    assert refused.value.error.message == "upstream 'up' refused prompt 'up_lookup': no prompt for q='[redacted]'"
    served = [span for span in spans.all() if span.name == "prompts/get up_lookup"]
    assert served and served[0].status.description == refused.value.error.message
    assert CALLERS not in json.dumps([span_text(span) for span in spans.all()], default=str)


def test_a_session_forgets_the_arguments_of_a_request_once_answered_or_cancelled() -> None:
    sent = SentArguments()
    for request_id in (1, 2, 3):
        params = {"name": "fetch", "arguments": {"q": CALLERS}}
        sent.sending(
            SessionMessage(mt.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params=params))
        )
    sent.sending(SessionMessage(mt.JSONRPCRequest(jsonrpc="2.0", id=4, method="tools/list")))  # nothing to note
    assert len(sent) == 3

    sent.received(SessionMessage(mt.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
    cancel = mt.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 2})
    sent.sending(SessionMessage(cancel))
    failure = mt.ErrorData(code=-32603, message=f"no results for {CALLERS}")
    read = sent.received(SessionMessage(mt.JSONRPCError(jsonrpc="2.0", id="3", error=failure)))  # "3" is 3

    assert len(sent) == 0
    assert isinstance(read.message, mt.JSONRPCError) and read.message.error.message == "no results for [redacted]"
    assert restored(mcp.MCPError.from_error_data(read.message.error)).error == failure


@pytest.mark.parametrize("method", ["tools/call", "prompts/get"])
async def test_a_request_for_a_name_no_tool_or_prompt_has_names_no_span_after_it(spans: Spans, method: str) -> None:
    """Span names stay bounded: a client (or a model inventing tools) cannot make one per call."""
    server = Server("small")
    server.add_tool(lambda: "pong", name="ping")
    server.add_prompt(lambda: "hi", name="greet")
    async with mcp.Client(server.as_mcp()) as client:
        for name in ("made_up_1", "made_up_2", "ping" if method == "tools/call" else "greet"):
            with contextlib.suppress(mcp.MCPError):
                await (client.call_tool(name, {}) if method == "tools/call" else client.get_prompt(name))
    served = [span.name for span in spans.all() if span.kind is SpanKind.SERVER and span.name.startswith(method)]
    known = "ping" if method == "tools/call" else "greet"
    assert served == [method, method, f"{method} {known}"]
