"""A remote mount used in-process without `async with` is never silently empty: it connects for the use."""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any

import anyio
import pytest

from tests.conftest import subprocess_env
from tests.server.test_remote import UPSTREAMS, alive
from toolweave import Server
from toolweave.core.errors import UnknownPrompt, UnknownResource, UnknownTool
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


async def test_concurrent_uses_without_a_lifespan_share_one_upstream_process() -> None:
    root = gateway()
    pids: list[int] = []

    async def ask_pid() -> None:
        pids.append(int((await root.call_tool("up_pid", {})).text))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(ask_pid)
    assert len(pids) == 5
    assert len(set(pids)) == 1  # one process started for all five uses, not one each
    assert not alive(pids[0])


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


def down_gateway() -> Server:
    return gateway(RemoteServer.stdio("/nonexistent/mcp-server", connect_timeout=3, backoff=Backoff(initial=30)))


async def get_up_review(root: Server) -> object:
    return await root.get_prompt("up_review", {"code": "x"})


async def read_up_cities(root: Server) -> object:
    return await root.read_resource("resource://up/cities")


async def read_up_weather(root: Server) -> object:
    return await root.read_resource("resource://up/paris/weather")  # a template's URI


USES = [
    pytest.param(get_up_review, UnknownPrompt, "Unknown prompt: up_review", id="prompt"),
    pytest.param(read_up_cities, UnknownResource, "Unknown resource: resource://up/cities", id="resource"),
    pytest.param(read_up_weather, UnknownResource, "Unknown resource: resource://up/paris/weather", id="template"),
]


@pytest.mark.parametrize("lifespan", [False, True], ids=["lazy", "async-with"])
@pytest.mark.parametrize(("use", "error", "unknown"), USES)
async def test_a_remote_that_cannot_start_is_named_when_its_prompt_or_resource_is_used(
    use: Any, error: type[Exception], unknown: str, lifespan: bool
) -> None:
    root = down_gateway()
    async with root if lifespan else contextlib.nullcontext(root):
        with pytest.raises(error) as failed:
            await use(root)
    message = str(failed.value)
    assert message.startswith(f"{unknown}; these remote servers are down: 'up' (down: ")
    assert "nonexistent" in message


async def test_listing_with_a_remote_that_cannot_start_lists_the_rest_and_warns_naming_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    root = down_gateway()
    root.add_tool(lambda: "ok", name="ping")
    caplog.set_level(logging.WARNING, logger="toolweave")
    assert [tool.name for tool in await root.list_tools()] == ["ping"]
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert any(message.startswith("[up] ") and "nonexistent" in message for message in warnings)


async def test_a_local_only_server_is_not_started_for_a_call() -> None:
    root = Server("local")
    root.add_tool(lambda: "ok", name="ping")
    assert (await root.call_tool("ping")).text == "ok"
    assert not root.running
