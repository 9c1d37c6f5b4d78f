"""A tool that asks its MCP client for something (a user's answer, a completion, a capability)
called by an agent framework: there is no client to ask, so the model reads an error answer and
the run goes on.

`InputRequired` and `MissingCapability` are protocol answers the catalog lets through; the
adapters let them through too, so they ended LangChain's `ainvoke`, the OpenAI Agents runner's
`on_invoke_tool` and the Pydantic AI agent's run with an exception.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from agents.tool_context import ToolContext
from langchain_core.messages import ToolMessage
from pydantic_ai import Agent

from tests.adapters.test_pydantic_ai import calling
from toolweave import Context, InputRequired, MissingCapability, Server
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset
from toolweave.core.input import elicit, sample

ASKED = {
    "book": "tool 'book' needs input from an MCP client (elicitation/create, sampling/createMessage), "
    "which a call from an agent cannot give",
    "summarize": "tool 'summarize' needs the MCP client capability 'sampling', "
    "which a call from an agent does not have",
}
ARGUMENTS = {"book": {"city": "Oslo"}, "summarize": {"text": "a long text"}}


def asking() -> Server:
    """`book` asks the user to confirm and the client's model for a line; `summarize` needs sampling."""
    server = Server("asking")

    @server.tool
    async def book(city: str, ctx: Context) -> str:
        if "confirm" not in ctx.input_responses:
            confirm = elicit(f"Book {city}?", {"type": "object"})
            raise InputRequired({"confirm": confirm, "line": sample(f"A line on {city}", max_tokens=20)})
        return "booked"

    @server.tool
    async def summarize(text: str, ctx: Context) -> str:
        raise MissingCapability("sampling")

    return server


@pytest.mark.parametrize("name", sorted(ASKED))
async def test_langchain_answers_with_an_error_tool_message(name: str, caplog: pytest.LogCaptureFixture) -> None:
    tool = {tool.name: tool for tool in structured_tools(asking())}[name]
    call = {"type": "tool_call", "id": "c1", "name": name, "args": ARGUMENTS[name]}
    with caplog.at_level(logging.WARNING, logger="toolweave.adapters"):
        message = await tool.ainvoke(call)
    assert isinstance(message, ToolMessage) and message.status == "error"
    assert message.content == ASKED[name]
    assert [record.getMessage() for record in caplog.records] == [f"{ASKED[name]}: answered as an error"]


@pytest.mark.parametrize("name", sorted(ASKED))
async def test_openai_agents_answers_with_an_error_output(name: str) -> None:
    tool = {tool.name: tool for tool in function_tools(asking())}[name]
    raw = json.dumps(ARGUMENTS[name])
    ctx: ToolContext[Any] = ToolContext(context=None, tool_name=name, tool_call_id="c1", tool_arguments=raw)
    assert await tool.on_invoke_tool(ctx, raw) == f"Error: {ASKED[name]}"


@pytest.mark.parametrize("name", sorted(ASKED))
async def test_pydantic_ai_hands_the_model_a_retry_prompt(name: str) -> None:
    agent = Agent(calling(name, ARGUMENTS[name], []), toolsets=[ToolweaveToolset(asking())])
    assert (await agent.run("go")).output == f"retry: {ASKED[name]}"
