"""Answers without a text block (an upstream may send them) reach the model as something to read
in the frameworks whose tools answer with text: structured content as its JSON, an error as the
tool having failed. The OpenAI Agents tools read `''` and `'Error: '`, LangChain's tool message
`''` (the data only in its artifact).
"""

from __future__ import annotations

import sys
from typing import Any

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")

from agents import FunctionTool
from agents.tool_context import ToolContext

from tests.conftest import ROOT
from toolweave import RemoteServer
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools

STATS = {"users": 3, "active": True}


def upstream() -> RemoteServer:
    """The bare-SDK upstream: `stats` answers `STATS` with no text, `fail` an error with no text."""
    return RemoteServer.stdio(sys.executable, [str(ROOT / "tests" / "servers" / "textless.py")], name="up")


async def invoke(tool: FunctionTool) -> Any:
    ctx: ToolContext[Any] = ToolContext(context=None, tool_name=tool.name, tool_call_id="c1", tool_arguments="{}")
    return await tool.on_invoke_tool(ctx, "{}")


async def test_openai_agents_outputs_the_content_as_json_and_the_failure() -> None:
    async with upstream() as server:
        tools = {tool.name: tool for tool in function_tools(server)}
        assert await invoke(tools["stats"]) == '{"users":3,"active":true}'
        assert await invoke(tools["fail"]) == "Error: tool 'fail' failed"


async def test_langchain_answers_the_content_as_json_and_keeps_it_as_the_artifact() -> None:
    async with upstream() as server:
        [tool] = [tool for tool in structured_tools(server) if tool.name == "stats"]
        message = await tool.ainvoke({"type": "tool_call", "id": "c1", "name": "stats", "args": {}})
    assert message.content == '{"users":3,"active":true}'
    assert message.artifact == STATS
