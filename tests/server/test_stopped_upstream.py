"""A stopped upstream (SIGSTOP: alive, silent, reading nothing) never holds a caller: every call,
prompt and read ends within the remote's `timeout`, even once the pipe to it is full, and the
answer names what the client called."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp
import pytest

from toolweave import UpstreamError

from .test_remote import running, stdio_remote, upstream_pid

BOUND = 1.0 + 5 + 3  # the remote's timeout, the SDK's bounded cancellation notice, slack for a busy machine


@asynccontextmanager
async def stopped_upstream(mode: str) -> AsyncIterator[Any]:
    async with running(stdio_remote(timeout=1.0), mode=mode) as client:
        pid = await upstream_pid(client)
        os.kill(pid, signal.SIGSTOP)
        try:
            yield client
        finally:
            os.kill(pid, signal.SIGCONT)  # so that shutdown can end it


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_calls_to_a_stopped_upstream_end_even_when_its_pipe_is_full(mode: str) -> None:
    async with stopped_upstream(mode) as client:
        texts = []
        for text in ["x" * 1_000_000, "small"]:  # the first fills the pipe; the next cannot even be sent
            with anyio.fail_after(BOUND):
                result = await client.call_tool("up_echo", {"text": text})
            assert result.is_error
            texts.append(result.content[0].text)
        assert (await client.call_tool("local", {})).content[0].text == "local ok"  # the gateway still serves
    assert texts == ["Tool 'up_echo' timed out after 1s"] * 2


async def test_prompts_and_reads_of_a_stopped_upstream_end_naming_what_the_client_asked_for() -> None:
    async with stopped_upstream("auto") as client:
        with anyio.fail_after(BOUND), pytest.raises(mcp.MCPError) as prompt:
            await client.get_prompt("up_review", {"code": "x"})
        with anyio.fail_after(BOUND), pytest.raises(mcp.MCPError) as read:
            await client.read_resource("resource://up/cities")
    assert prompt.value.error.message == "upstream 'up' did not answer prompt 'up_review' within 1s"
    assert read.value.error.message == "upstream 'up' did not answer resource 'resource://up/cities' within 1s"


async def test_a_config_sources_timeout_is_the_remotes_own_bound() -> None:
    from tests.conftest import subprocess_env
    from toolweave.config import build
    from toolweave.config.models import Config

    from .test_remote import UPSTREAMS

    entry = {"command": sys.executable, "args": [str(UPSTREAMS / "tw_upstream.py")], "env": subprocess_env()}
    bounds = {"timeout": 1, "connect_timeout": 30}
    composed = build(Config.model_validate({"mcpServers": {"up": {**entry, "prefix": "up", **bounds}}}))
    gateway = composed.server
    async with gateway:
        await composed.remotes[0].wait_connected()  # (its start is bounded by connect_timeout, not timeout)
        pid = int((await gateway.call_tool("up_pid", {})).text)
        os.kill(pid, signal.SIGSTOP)
        try:  # no Timeout middleware covers prompts: only the remote's own bound can end this one
            with anyio.fail_after(BOUND), pytest.raises(UpstreamError) as prompt:
                await gateway.get_prompt("up_review", {"code": "x"})
        finally:
            os.kill(pid, signal.SIGCONT)
    assert str(prompt.value) == "upstream 'up' did not answer prompt 'up_review' within 1s"
