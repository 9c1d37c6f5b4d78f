"""Each adapter shows the framework's model only the tools its caller may see, as `tools/list`
does (`Authorize`), and a tool the caller may not use, called anyway, is an error answer the
model reads — not an exception out of the framework's run.

The adapters listed every tool to every caller (names and descriptions of admin tools reached
any user's model), and a call to one raised `UnknownTool` out of LangChain's `ainvoke`, the
OpenAI Agents runner's `on_invoke_tool` and the Pydantic AI agent's run.
"""

from __future__ import annotations

from typing import Any

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from agents import Agent as OpenAIAgent
from agents import RunContextWrapper
from agents.tool_context import ToolContext
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolweave import AuthInfo, Context, Server
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset
from toolweave.transforms import Authorize

SCOPES = {"ada": ("admin",), "bob": ()}


def vault() -> Server:
    """`status` for anyone, `rotate_keys` for callers with the `admin` scope."""
    server = Server("vault")

    @server.tool
    def status() -> str:
        """Is the vault sealed?"""
        return "unsealed"

    @server.tool
    def rotate_keys() -> str:
        """Rotate the master key."""
        return "rotated"

    server.add_transform(Authorize(scopes=["admin"]), tools="rotate_keys")
    return server


def caller(user: str) -> Context:
    return Context(auth=AuthInfo(subject=user, scopes=SCOPES[user]))


# -- LangChain ------------------------------------------------------------------------------------


ADA: RunnableConfig = {"configurable": {"user": "ada"}}


def langchain_user(config: Any) -> Context:
    return caller(config["configurable"]["user"])


def test_langchain_lists_the_tools_of_the_context_caller() -> None:
    assert [tool.name for tool in structured_tools(vault(), context=caller("bob"))] == ["status"]
    assert [tool.name for tool in structured_tools(vault(), context=caller("ada"))] == ["status", "rotate_keys"]
    assert [tool.name for tool in structured_tools(vault())] == ["status"]  # anonymous


def test_langchain_with_a_context_function_lists_the_tools_of_the_configs_caller() -> None:
    server = vault()
    assert [tool.name for tool in structured_tools(server, context=langchain_user)] == ["status"]  # anonymous
    listed = structured_tools(server, context=langchain_user, config=ADA)
    assert [tool.name for tool in listed] == ["status", "rotate_keys"]


async def test_langchain_a_forbidden_tool_called_anyway_is_an_error_tool_message() -> None:
    tools = structured_tools(vault(), context=langchain_user, config=ADA)
    rotate = {tool.name: tool for tool in tools}["rotate_keys"]
    call = {"type": "tool_call", "id": "c1", "name": "rotate_keys", "args": {}}
    message = await rotate.ainvoke(call, config={"configurable": {"user": "bob"}})
    assert isinstance(message, ToolMessage)
    assert (message.status, message.content) == ("error", "Unknown tool: rotate_keys")
    allowed = await rotate.ainvoke(call, config=ADA)
    assert (allowed.status, allowed.content) == ("success", "rotated")


# -- OpenAI Agents --------------------------------------------------------------------------------


def openai_user(ctx: ToolContext[Any]) -> Context:
    return caller(ctx.context["user"])


async def test_openai_agents_shows_each_run_only_the_tools_of_its_caller() -> None:
    agent = OpenAIAgent(name="ops", tools=list(function_tools(vault(), context=openai_user)))
    for user, names in {"bob": ["status"], "ada": ["status", "rotate_keys"]}.items():
        shown = await agent.get_all_tools(RunContextWrapper(context={"user": user}))
        assert [tool.name for tool in shown] == names


def test_openai_agents_lists_the_tools_of_a_fixed_context_caller() -> None:
    assert [tool.name for tool in function_tools(vault(), context=caller("bob"))] == ["status"]


async def test_openai_agents_a_forbidden_tool_called_anyway_is_an_error_output() -> None:
    rotate = {tool.name: tool for tool in function_tools(vault(), context=openai_user)}["rotate_keys"]
    for user, output in {"bob": "Error: Unknown tool: rotate_keys", "ada": "rotated"}.items():
        run = ToolContext(context={"user": user}, tool_name="rotate_keys", tool_call_id="c1", tool_arguments="{}")
        assert await rotate.on_invoke_tool(run, "{}") == output


# -- Pydantic AI ----------------------------------------------------------------------------------


def calling_anyway(name: str, seen: list[list[str]]) -> FunctionModel:
    """A model that notes the tools it is shown, calls `name` once, then answers with what came back."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([tool.name for tool in info.function_tools])
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart):
                said = "retry" if part.outcome == "retried" else "got"
                return ModelResponse(parts=[TextPart(f"{said}: {part.content}")])
        return ModelResponse(parts=[ToolCallPart(name, {})])

    return FunctionModel(respond)


async def test_pydantic_ai_shows_the_model_only_the_runs_callers_tools_and_refuses_the_rest_as_a_retry() -> None:
    toolset = ToolweaveToolset(vault(), context=lambda run: caller(run.deps))
    seen: list[list[str]] = []
    refused = await Agent(calling_anyway("rotate_keys", seen), deps_type=str, toolsets=[toolset]).run("go", deps="bob")
    assert seen[0] == ["status"]
    assert refused.output.startswith("retry: ") and "rotate_keys" in refused.output
    seen.clear()
    allowed = await Agent(calling_anyway("rotate_keys", seen), deps_type=str, toolsets=[toolset]).run("go", deps="ada")
    assert (seen[0], allowed.output) == (["status", "rotate_keys"], "got: rotated")
