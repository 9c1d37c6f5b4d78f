"""An upstream that speaks only the 2026-07-28 protocol connects (the era is negotiated), and its
list changes still reach the gateway's clients."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import anyio
import pytest

from tests.conftest import subprocess_env
from tests.server.changes import names, watched
from tests.serving import PORT, spawned
from toolweave import Server
from toolweave.server.remote import RemoteServer

from .raw import SERVERS

SCRIPT = str(SERVERS / "modern_only.py")


@pytest.fixture
def modern_http() -> Iterator[str]:
    with spawned(sys.executable, SCRIPT, "http", PORT) as server:
        yield f"{server.url}/mcp"


def gateway(remote: RemoteServer) -> Server:
    root = Server("gateway")
    root.mount(remote, prefix="up")
    return root


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_2026_only_upstream_connects_and_serves(transport: str, request: pytest.FixtureRequest) -> None:
    if transport == "stdio":
        remote = RemoteServer.stdio(sys.executable, [SCRIPT], env=subprocess_env())
    else:
        remote = RemoteServer.http(request.getfixturevalue("modern_http"))
    async with watched(gateway(remote), "legacy") as (client, changes):
        assert remote.state == "up"
        result = await client.call_tool("up_echo", {"text": "new era"})
        await client.call_tool("up_grow", {"name": "sprout"})
        await changes.wait_for(1)
        listed = await names(client)
    assert remote.era == "2026"
    assert result.content[0].text == "new era"
    assert "up_sprout" in listed


async def test_a_2025_upstream_keeps_the_handshake() -> None:
    remote = RemoteServer.stdio(sys.executable, [str(SERVERS / "target.py")], env=subprocess_env())
    async with gateway(remote):
        with anyio.fail_after(10):
            await remote.wait_connected()
        assert remote.era == "2025"
