"""Each adapter shows the framework's model what `tools/list` shows its caller after the server's
list middleware (`on_list_tools`), not only after `Authorize`.

LangChain's and OpenAI Agents' tools were made once without awaiting the list middleware, so a
middleware that hides tools per caller hid nothing from those frameworks' models (Pydantic AI's
toolset applied it). OpenAI's `is_enabled` now awaits the listing per run; LangChain's
`astructured_tools` awaits it, and `structured_tools` refuses a server it cannot filter.
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from agents import Agent as OpenAIAgent
from agents import ModelResponse as AgentsModelResponse
from agents import RunConfig, RunContextWrapper, Runner, Usage
from agents.models.interface import Model
from agents.tool_context import ToolContext
from langchain_core.runnables import RunnableConfig
from openai.types.responses import ResponseOutputMessage, ResponseOutputText
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolweave import AuthInfo, Context, Middleware, Server, Tool
from toolweave.adapters.langchain import astructured_tools, structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset

SHOWN = {"ada": ["status", "rotate_keys"], "bob": ["status"]}
OFFLINE = RunConfig(tracing_disabled=True)


class AdminsOnly(Middleware):
    """Lists `rotate_keys` only to `ada` (a list filter: calls are not its business)."""

    async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
        subject = ctx.auth.subject if ctx.auth else None
        return [tool for tool in tools if tool.name != "rotate_keys" or subject == "ada"]


def vault() -> Server:
    server = Server("vault", middleware=[AdminsOnly()])

    @server.tool
    def status() -> str:
        """Is the vault sealed?"""
        return "unsealed"

    @server.tool
    def rotate_keys() -> str:
        """Rotate the master key."""
        return "rotated"

    return server


def caller(user: str) -> Context:
    return Context(auth=AuthInfo(subject=user))


# -- LangChain ------------------------------------------------------------------------------------


def test_langchain_structured_tools_refuses_a_server_with_list_middleware_naming_it_and_the_fix() -> None:
    with pytest.raises(RuntimeError, match=r"'vault' filters each tool listing with AdminsOnly.*astructured_tools"):
        structured_tools(vault(), context=caller("bob"))


@pytest.mark.parametrize("user", SHOWN)
async def test_langchain_astructured_tools_lists_through_the_list_middleware(user: str) -> None:
    assert [tool.name for tool in await astructured_tools(vault(), context=caller(user))] == SHOWN[user]


async def test_langchain_astructured_tools_lists_to_the_configs_caller_or_an_anonymous_one() -> None:
    def per_user(config: Any) -> Context:
        return caller(config["configurable"]["user"])

    ada: RunnableConfig = {"configurable": {"user": "ada"}}
    assert [tool.name for tool in await astructured_tools(vault(), context=per_user, config=ada)] == SHOWN["ada"]
    assert [tool.name for tool in await astructured_tools(vault(), context=per_user)] == ["status"]


async def test_langchain_astructured_tools_call_through_the_catalog() -> None:
    [status] = await astructured_tools(vault())
    assert await status.ainvoke({}) == "unsealed"


# -- OpenAI Agents --------------------------------------------------------------------------------


async def test_openai_agents_shows_each_run_what_the_list_middleware_lets_through() -> None:
    def per_user(ctx: ToolContext[Any]) -> Context:
        return caller(ctx.context["user"])

    agent = OpenAIAgent(name="ops", tools=list(function_tools(vault(), context=per_user)))
    for user, names in SHOWN.items():
        shown = await agent.get_all_tools(RunContextWrapper(context={"user": user}))
        assert [tool.name for tool in shown] == names


class ShownTools(Model):
    """A model that notes the tools each request shows it and answers at once, without a network."""

    def __init__(self) -> None:
        self.shown: list[list[str]] = []

    async def get_response(  # type: ignore[override] # the parameters a test reads, the rest as they come
        self, system_instructions: Any, input: Any, model_settings: Any, tools: list[Any], *args: Any, **kwargs: Any
    ) -> AgentsModelResponse:
        self.shown.append([tool.name for tool in tools])
        text = ResponseOutputText(type="output_text", text="done", annotations=[])
        message = ResponseOutputMessage(id="m1", type="message", role="assistant", status="completed", content=[text])
        return AgentsModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.mark.parametrize("user", SHOWN)
async def test_openai_agents_runner_shows_the_model_what_the_list_middleware_lets_through(user: str) -> None:
    model = ShownTools()
    tools = function_tools(vault(), context=lambda ctx: caller(ctx.context))
    await Runner.run(OpenAIAgent(name="ops", model=model, tools=list(tools)), "go", context=user, run_config=OFFLINE)
    assert model.shown == [SHOWN[user]]


@pytest.mark.parametrize("user", SHOWN)
async def test_openai_agents_with_a_fixed_context_applies_the_list_middleware(user: str) -> None:
    agent = OpenAIAgent(name="ops", tools=list(function_tools(vault(), context=caller(user))))
    assert [tool.name for tool in await agent.get_all_tools(RunContextWrapper(context=None))] == SHOWN[user]


class Entitlements(Middleware):
    """Lists only the tools `granted` holds, looking them up (a checkpoint, as a store would)
    once per listing, counted."""

    def __init__(self, granted: set[str]) -> None:
        super().__init__()
        self.granted, self.listings = granted, 0

    async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
        self.listings += 1
        await anyio.lowlevel.checkpoint()
        return [tool for tool in tools if tool.name in self.granted]


async def test_openai_agents_list_once_per_gathering_of_the_agents_tools_and_anew_for_the_next() -> None:
    entitlements = Entitlements({"t0", "t1"})
    server = Server("many", middleware=[entitlements])
    for number in range(20):
        server.add_tool(lambda: "ok", name=f"t{number}")
    agent = OpenAIAgent(name="ops", tools=list(function_tools(server, context=lambda ctx: caller("ada"))))
    run = RunContextWrapper(context=None)
    assert [tool.name for tool in await agent.get_all_tools(run)] == ["t0", "t1"]
    assert entitlements.listings == 1
    entitlements.granted = {"t5"}
    assert [tool.name for tool in await agent.get_all_tools(run)] == ["t5"]
    assert entitlements.listings == 2


async def test_openai_agents_a_failing_list_middleware_fails_the_gathering() -> None:
    class Broken(Middleware):
        async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
            raise LookupError("entitlements store unreachable")

    server = Server("broken", middleware=[Broken()])
    server.add_tool(lambda: "ok", name="status")
    agent = OpenAIAgent(name="ops", tools=list(function_tools(server)))
    with pytest.raises(LookupError, match="entitlements store unreachable"):
        await agent.get_all_tools(RunContextWrapper(context=None))


# -- Pydantic AI (the toolset always listed through it) --------------------------------------------


async def test_pydantic_ai_shows_the_model_what_the_list_middleware_lets_through() -> None:
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([tool.name for tool in info.function_tools])
        return ModelResponse(parts=[TextPart("done")])

    toolset = ToolweaveToolset(vault(), context=lambda run: caller(run.deps))
    for user in SHOWN:
        await Agent(FunctionModel(respond), deps_type=str, toolsets=[toolset]).run("go", deps=user)
    assert seen == list(SHOWN.values())
