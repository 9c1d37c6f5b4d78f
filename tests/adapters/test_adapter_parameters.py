"""Each adapter shows the model an input schema with `properties`, even for a tool whose own
schema has none: MCP allows `{"type": "object"}` (the official Go SDK sends it for a tool without
arguments) and OpenAI refuses such a function ("object schema missing properties"), failing the
whole run. LangChain's `tool.args` raised `KeyError: 'properties'` on it too.
"""

from __future__ import annotations

import sys
from typing import Any

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from agents.models.chatcmpl_converter import Converter
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic_ai import Agent
from pydantic_ai.models.function import AgentInfo

from tests.adapters.test_pydantic_ai import calling
from tests.conftest import ROOT
from toolweave import Context, RemoteServer, Server, ToolResult
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset
from toolweave.core.content import TextContent
from toolweave.testing import fake_tool

BARE = {"type": "object"}
SHOWN = {"type": "object", "properties": {}}


async def pong(arguments: dict[str, Any], ctx: Context) -> ToolResult:
    return ToolResult([TextContent("pong")])


def bare() -> Server:
    """`ping`, whose input schema is `{"type": "object"}`."""
    server = Server("bare")
    server.add_tool(fake_tool("ping", dict(BARE), reply=pong))
    return server


async def test_langchain_shows_empty_properties_and_calls_the_tool() -> None:
    server = bare()
    [tool] = structured_tools(server)
    assert convert_to_openai_tool(tool)["function"]["parameters"] == SHOWN
    assert tool.args == {}
    assert await tool.ainvoke({}) == "pong"
    assert server.catalog.get("ping").tool.input_schema == BARE  # what an MCP client lists is unchanged


def test_openai_agents_shows_empty_properties_to_chat_completions() -> None:
    [tool] = function_tools(bare())
    assert Converter.tool_to_openai(tool)["function"]["parameters"] == SHOWN


async def test_pydantic_ai_shows_empty_properties() -> None:
    seen: list[AgentInfo] = []
    agent = Agent(calling("ping", {}, seen), toolsets=[ToolweaveToolset(bare())])
    assert (await agent.run("ping?")).output == repr("pong")
    assert seen[0].function_tools[0].parameters_json_schema == SHOWN


async def test_a_stdio_upstreams_tool_without_properties_is_shown_with_them() -> None:
    """`off_schema` of the bare-SDK upstream declares `{"type": "object"}`."""
    upstream = RemoteServer.stdio(sys.executable, [str(ROOT / "tests" / "servers" / "leaky_upstream.py")], name="up")
    async with upstream:
        tools = {tool.name: tool for tool in function_tools(upstream)}
        assert upstream.catalog.get("off_schema").tool.input_schema == BARE
    assert tools["off_schema"].params_json_schema == SHOWN
