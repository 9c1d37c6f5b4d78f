"""A remote mount used in-process without `async with` is never silently empty: it connects for the use."""

from __future__ import annotations

import logging
import sys

import anyio
import pytest

from tests.conftest import subprocess_env
from tests.server.test_remote import UPSTREAMS, alive
from toolweave import Server
from toolweave.core.errors import UnknownTool
from toolweave.server.remote import Backoff, RemoteServer


def gateway(remote: RemoteServer | None = None) -> Server:
    root = Server("root")
    root.mount(
        remote or RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "tw_upstream.py")], env=subprocess_env()),
        prefix="up",
    )
    return root


async def test_listing_without_a_lifespan_lists_the_remote_tools() -> None:
    root = gateway()
    names = [tool.name for tool in await root.list_tools()]
    assert "up_echo" in names
    assert not root.running


async def test_calling_without_a_lifespan_reaches_the_upstream_and_leaves_no_process() -> None:
    root = gateway()
    pid = int((await root.call_tool("up_pid", {})).text)
    result = await root.call_tool("up_echo", {"text": "lazy"})
    assert result.structured_content == {"echo": "lazy"}
    assert not alive(pid)


async def test_a_remote_mounted_deeper_after_a_first_use_is_connected_for_the_next() -> None:
    root, middle = Server("root"), Server("middle")
    middle.add_tool(lambda: "local", name="here")
    root.mount(middle, prefix="mid")
    assert (await root.call_tool("mid_here", {})).text == "local"  # nothing remote yet
    middle.mount(
        RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "tw_upstream.py")], env=subprocess_env()), prefix="up"
    )
    result = await root.call_tool("mid_up_echo", {"text": "deep"})
    assert result.structured_content == {"echo": "deep"}
    assert not root.running


async def test_prompts_and_resources_without_a_lifespan_reach_the_upstream() -> None:
    root = gateway()
    assert "up_review" in [prompt.name for prompt in await root.list_prompts()]
    assert (await root.read_resource("resource://up/cities")).contents


async def test_concurrent_uses_without_a_lifespan_share_one_connection() -> None:
    root = gateway()
    results: list[str] = []

    async def call(index: int) -> None:
        results.append((await root.call_tool("up_echo", {"text": str(index)})).structured_content["echo"])

    async with anyio.create_task_group() as tasks:
        for index in range(5):
            tasks.start_soon(call, index)
    assert sorted(results) == ["0", "1", "2", "3", "4"]
    assert not root.running


async def test_the_connection_for_a_use_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.server")
    await gateway().list_tools()
    assert any("not running: connecting 'up' for this call" in record.getMessage() for record in caplog.records)


async def test_a_remote_that_cannot_start_is_named_when_its_tool_is_called() -> None:
    down = RemoteServer.stdio("/nonexistent/mcp-server", connect_timeout=3, backoff=Backoff(initial=30))
    with pytest.raises(UnknownTool) as failed:
        await gateway(down).call_tool("up_echo", {"text": "x"})
    message = str(failed.value)
    assert message.startswith("Unknown tool: up_echo; these remote servers are down: 'up' (down: ")
    assert "nonexistent" in message


async def test_a_local_only_server_is_not_started_for_a_call() -> None:
    root = Server("local")
    root.add_tool(lambda: "ok", name="ping")
    assert (await root.call_tool("ping")).text == "ok"
    assert not root.running
