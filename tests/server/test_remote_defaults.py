"""A remote server bounds each request to its upstream by default (`timeout=60.0`), so a hung
upstream can never hold a caller forever."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.config import build
from toolweave.config.models import Config
from toolweave.server.remote import RemoteServer

from .conftest import UPSTREAMS

DEFAULT_TIMEOUT = 60.0


@pytest.mark.parametrize(
    "remote",
    [
        RemoteServer.stdio("mcp-server"),
        RemoteServer.http("https://mcp.example.test/mcp"),
        RemoteServer.sse("https://mcp.example.test/sse"),
    ],
    ids=["stdio", "http", "sse"],
)
def test_a_remote_gets_a_60_second_request_timeout(remote: RemoteServer) -> None:
    assert remote.timeout == DEFAULT_TIMEOUT


def test_a_config_entry_without_timeout_keeps_the_default() -> None:
    composed = build(Config.model_validate({"mcpServers": {"up": {"command": "mcp-server"}}}))
    assert [remote.timeout for remote in composed.remotes] == [DEFAULT_TIMEOUT]


async def test_the_default_bounds_a_call_to_a_hung_upstream(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 60 s bound is what ends the call (cut to 0.3 s here, so the test does not wait a minute)."""
    original = anyio.move_on_after

    def shortened(delay: float, *args: Any, **kwargs: Any) -> anyio.CancelScope:
        return original(0.3 if delay == DEFAULT_TIMEOUT else delay, *args, **kwargs)

    monkeypatch.setattr(anyio, "move_on_after", shortened)
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "tw_upstream.py")], env=subprocess_env())
    gateway = Server("gateway")
    gateway.mount(remote, prefix="up")
    async with gateway:
        with anyio.fail_after(20):
            result = await gateway.call_tool("up_sleep", {"seconds": 30})
    assert result.is_error and result.text == "Tool 'up_sleep' timed out after 60s"
