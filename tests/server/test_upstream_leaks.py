"""What an upstream says goes back to the client without the gateway's secrets, internal upstream
errors are masked, messages name the tool as the client called it, and a hung upstream is bounded."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp import Client

from tests.conftest import ROOT, subprocess_env
from toolweave import RemoteServer, Server
from toolweave.transforms import FromEnv, FromHeader, InjectArgs, Secret

KEY = "S3CR3T-0123456789abcdef"
LEAKY = str(ROOT / "tests" / "servers" / "leaky_upstream.py")


@asynccontextmanager
async def leaky_gateway() -> AsyncIterator[Server]:
    remote = RemoteServer.stdio(sys.executable, [LEAKY], env=subprocess_env(), timeout=1.0)
    server = Server("gateway")  # mask_error_details=True, the default
    server.mount(remote, prefix="up")
    server.add_transform(InjectArgs(api_key=FromEnv("LEAKY_KEY")), tools="up_fetch_*")
    server.add_transform(InjectArgs(api_key=FromEnv("LEAKY_KEY")), tools=["up_bad_params", "up_hang"])
    async with server:
        yield server


@pytest.fixture(autouse=True)
def leaky_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAKY_KEY", KEY)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_upstreams_progress_messages_and_meta_are_scrubbed(mode: str) -> None:
    messages: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message)

    async with leaky_gateway() as gateway, Client(gateway.as_mcp(), mode=mode) as client:
        result = await client.call_tool("up_fetch_progress", {"q": "x"}, progress_callback=on_progress)
    assert messages == ["fetching https://api.example.test/v1?q=x&api_key=[redacted]"]
    assert result.meta is not None and result.meta["source"] == "https://api.example.test/v1?q=x&api_key=[redacted]"
    assert KEY not in str(result.model_dump())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_no_injected_secret_reaches_the_client(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    async with leaky_gateway() as gateway, Client(gateway.as_mcp(), mode=mode) as client:
        internal = await client.call_tool("up_fetch_error", {"q": "x"})
        is_error = await client.call_tool("up_fetch_is_error", {"q": "x"})
        ok = await client.call_tool("up_fetch_ok", {"q": "x"})
    for result in (internal, is_error, ok):
        assert KEY not in str(result.model_dump()), result
    assert internal.is_error and internal.content[0].text.startswith("Error calling tool 'up_fetch_error' (incident ")
    assert (
        is_error.is_error
        and is_error.content[0].text == "failed: GET https://api.example.test/v1?q=x&api_key=[redacted]"
    )
    assert ok.structured_content == {"url": "https://api.example.test/v1?q=x&api_key=[redacted]", "key": "[redacted]"}
    assert KEY not in caplog.text  # the masked error is logged, scrubbed too
    assert "JSON-RPC -32603" in caplog.text and "api_key=[redacted]" in caplog.text


async def test_refused_arguments_stay_a_clear_tool_error() -> None:
    async with leaky_gateway() as gateway:
        result = await gateway.call_tool("up_bad_params", {"q": ""})
    assert result.is_error and result.text == "upstream 'up' refused the call to 'up_bad_params': q must not be empty"


async def test_a_hung_upstream_is_bounded_by_the_remote_timeout() -> None:
    async with leaky_gateway() as gateway:
        with anyio.fail_after(5):
            result = await gateway.call_tool("up_hang", {"q": "x"})
        after = await gateway.call_tool("up_fetch_ok", {"q": "y"})
    assert result.is_error and result.text == "Tool 'up_hang' timed out after 1s"
    assert after.is_error is False  # still serving


def test_only_server_supplied_values_are_redacted() -> None:
    from toolweave import Context, Tool

    def echo(text: str, key: str, tenant: str, region: str) -> str:
        return f"{text} {key} {tenant} {region}"

    tool = Tool.from_function(echo).with_transforms(
        InjectArgs(key=Secret("k-0123456789"), tenant=FromHeader("x-tenant"), region="eu-west-1")
    )
    server = Server("s")
    server.add_tool(tool)
    ctx = Context(headers={"x-tenant": "acme-corporation"})
    result = anyio.run(lambda: server.call_tool("echo", {"text": "hi k-0123456789"}, ctx=ctx))
    # the secret constant is scrubbed (even where the client typed it); the caller's own header
    # and a plain constant are not secrets
    assert result.text == "hi [redacted] [redacted] acme-corporation eu-west-1"


async def test_logging_captures_nothing_secret_on_a_local_tool(caplog: pytest.LogCaptureFixture) -> None:
    from toolweave import Tool

    def fetch(api_key: str) -> str:
        raise RuntimeError(f"connection refused for https://api.test/?key={api_key}")

    server = Server("s")
    server.add_tool(Tool.from_function(fetch).with_transforms(InjectArgs(api_key=Secret(KEY))))
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    result = await server.call_tool("fetch", {})
    assert result.is_error and KEY not in result.text
    assert "key=[redacted]" in caplog.text and KEY not in caplog.text


async def test_a_bare_upstream_result_that_breaks_its_own_schema_is_masked(caplog: pytest.LogCaptureFixture) -> None:
    async with leaky_gateway() as gateway:
        result = await gateway.call_tool("up_off_schema", {})
    # sent on, it would make the client's SDK raise: masked, and the operator's log says why
    assert result.is_error and result.text.startswith("Error calling tool 'up_off_schema' (incident ")
    assert "does not match the output schema (n: type)" in caplog.text
