"""An upstream whose first connection attempt is still waiting when the server starts is "down"
with a reason (it had none: `list` printed "is down" and nothing more)."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from tests.conftest import subprocess_env
from tests.server.test_remote import UPSTREAMS
from tests.serving import serving
from toolweave import RemoteServer, Server
from toolweave.core.errors import UnknownTool


@pytest.mark.parametrize("kind", ["http", "sse"])
async def test_an_upstream_that_never_answers_is_down_saying_why(kind: str) -> None:
    done = anyio.Event()

    async def silent(scope: Any, receive: Any, send: Any) -> None:
        """Takes requests and answers none until the test is over."""
        if scope["type"] == "http":
            await done.wait()

    async with serving(silent) as url:
        remote = getattr(RemoteServer, kind)(f"{url}/mcp", connect_timeout=0.5)
        root = Server("gateway")
        root.mount(remote, prefix="up")
        async with root:
            state, why = remote.state, remote.last_error
            with pytest.raises(UnknownTool) as unknown:
                await root.call_tool("up_echo", {})
        done.set()
    assert (state, why) == ("down", "no answer within connect_timeout=0.5s")
    assert "'up' (down: no answer within connect_timeout=0.5s)" in str(unknown.value)


async def test_an_upstream_that_never_answers_the_handshake_is_down_saying_so() -> None:
    """Its failure said only "TimeoutError"."""
    script = [str(UPSTREAMS / "raw_upstream.py"), "silent"]
    remote = RemoteServer.stdio(sys.executable, script, env=subprocess_env(), connect_timeout=0.5)
    root = Server("gateway")
    root.mount(remote, prefix="up")
    async with root:
        with anyio.fail_after(20):
            while remote.last_error == "no answer within connect_timeout=0.5s":  # noqa: ASYNC110 - the first attempt
                await anyio.sleep(0.05)
        why = remote.last_error
    said = "no answer to the handshake (initialize or server/discover) within connect_timeout=0.5s"
    assert why == f"TimeoutError: {said}"
