"""A result with structured content and no text block (an upstream may answer so) reaches the
model as that content's JSON, in the frameworks whose tools answer with text: the OpenAI Agents
tools and LangChain's tool message read an empty answer, the data only in LangChain's artifact.
"""

from __future__ import annotations

import sys

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")

from agents.tool_context import ToolContext

from tests.conftest import ROOT
from toolweave import RemoteServer
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools

STATS = {"users": 3, "active": True}
UPSTREAM = [str(ROOT / "tests" / "servers" / "structured_only.py")]


def upstream() -> RemoteServer:
    """The bare-SDK upstream whose `stats` answers `{"users": 3, "active": true}` with no text."""
    return RemoteServer.stdio(sys.executable, UPSTREAM, name="up")


async def test_openai_agents_outputs_the_content_as_json() -> None:
    async with upstream() as server:
        [tool] = function_tools(server)
        ctx = ToolContext(context=None, tool_name="stats", tool_call_id="c1", tool_arguments="{}")
        assert await tool.on_invoke_tool(ctx, "{}") == '{"users":3,"active":true}'


async def test_langchain_answers_the_content_as_json_and_keeps_it_as_the_artifact() -> None:
    async with upstream() as server:
        [tool] = structured_tools(server)
        message = await tool.ainvoke({"type": "tool_call", "id": "c1", "name": "stats", "args": {}})
    assert message.content == '{"users":3,"active":true}'
    assert message.artifact == STATS
