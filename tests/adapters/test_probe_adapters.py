"""Adapters that make their tool objects once: a server whose remote servers are not started yet
is refused (their tools were missing without a word), and LangChain tool arguments named like
LangChain's own parameters reach the tool."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")

from tests.conftest import subprocess_env
from tests.reliability.raw import SERVERS
from toolweave import RemoteServer, Server
from toolweave.adapters.langchain import astructured_tools, structured_tools
from toolweave.adapters.openai_agents import function_tools


def with_upstream() -> Server:
    """A gateway mounting a real stdio upstream under `up`."""
    gateway = Server("gateway")
    gateway.mount(RemoteServer.stdio(sys.executable, [str(SERVERS / "target.py")], env=subprocess_env()), prefix="up")
    return gateway


@pytest.mark.parametrize("make", [structured_tools, function_tools])
async def test_tools_made_before_the_server_runs_are_refused_naming_the_remote(make: Callable[..., Any]) -> None:
    gateway = with_upstream()
    with pytest.raises(RuntimeError) as caught:
        make(gateway)
    assert str(caught.value) == (
        "server 'gateway' is not running, so the tools of 'up' are not listed yet: "
        "make the tools inside `async with server:`"
    )
    async with gateway:
        names = {tool.name for tool in make(gateway)}
    assert "up_echo" in names


async def test_langchain_astructured_tools_before_the_server_runs_are_refused_naming_the_remote() -> None:
    """Listing started the upstream for the listing alone (warning it was down), and every call
    of the tools made then started it again: a process spawned a call."""
    gateway = with_upstream()
    with pytest.raises(RuntimeError, match=r"^server 'gateway' is not running, so the tools of 'up' are not listed"):
        await astructured_tools(gateway)
    async with gateway:
        tools = {tool.name: tool for tool in await astructured_tools(gateway)}
        assert await tools["up_echo"].ainvoke({"text": "hi"}) == "hi"


async def test_langchain_arguments_named_config_run_manager_and_callbacks_reach_the_tool() -> None:
    server = Server("settings")

    @server.tool
    def configure(config: str, run_manager: str = "-", callbacks: str = "-") -> str:
        """Store a setting."""
        return f"{config} {run_manager} {callbacks}"

    [tool] = structured_tools(server)
    direct = await tool.ainvoke({"config": "a", "run_manager": "b", "callbacks": "c"})
    called = await tool.ainvoke({"type": "tool_call", "id": "t1", "name": "configure", "args": {"config": "a"}})
    assert direct == "a b c"
    assert called.content == "a - -"
