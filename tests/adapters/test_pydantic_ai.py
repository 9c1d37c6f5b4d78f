"""The Pydantic AI toolset against the real framework, driven by its FunctionModel (no LLM)."""

from __future__ import annotations

from typing import Any

from tests.optional import require

require("pydantic_ai", "the pydantic-ai extra is not installed")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.adapters.gateway import LONG, PROVIDER_NAME, dotted, gateway
from toolweave import AuthInfo, Context
from toolweave.adapters.pydantic_ai import ToolweaveToolset


def calling(name: str, arguments: dict[str, Any], seen: list[AgentInfo]) -> FunctionModel:
    """A model that calls one tool, then answers with what the tool returned (or the retry prompt)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart) and part.outcome == "retried":
                return ModelResponse(parts=[TextPart(f"retry: {part.content}")])
            if isinstance(part, ToolReturnPart):
                return ModelResponse(parts=[TextPart(repr(part.content))])
        return ModelResponse(parts=[ToolCallPart(name, arguments)])

    return FunctionModel(respond)


def per_user(run: Any) -> Context:
    return Context(auth=AuthInfo(subject=run.deps))


async def test_the_agent_sees_the_exposed_schemas_and_calls_through_the_catalog() -> None:
    server, recorder = gateway()
    seen: list[AgentInfo] = []
    agent = Agent(
        calling("weather", {"city": "Oslo"}, seen), deps_type=str, toolsets=[ToolweaveToolset(server, context=per_user)]
    )
    result = await agent.run("weather in Oslo?", deps="u-7")
    assert result.output == repr({"city": "Oslo", "sky": "clear", "for": "u-7"})
    tools = {tool.name: tool for tool in seen[0].function_tools}
    assert set(tools) == {"weather", "forecast"}
    assert list(tools["weather"].parameters_json_schema["properties"]) == ["city"]
    assert [call.tool.name for call in recorder.calls] == ["weather"]


async def test_a_wrapped_result_reaches_the_model_unwrapped() -> None:
    server, _ = gateway()
    agent = Agent(calling("forecast", {"days": 2}, []), toolsets=[ToolweaveToolset(server)])
    assert (await agent.run("forecast?")).output == repr(["sun", "sun"])


async def test_an_error_result_is_a_retry_prompt_for_the_model() -> None:
    server, _ = gateway()
    agent = Agent(calling("forecast", {"days": 9}, []), toolsets=[ToolweaveToolset(server)])
    assert (await agent.run("forecast?")).output == "retry: at most 7 days"


async def test_an_injected_argument_sent_by_the_model_is_refused() -> None:
    server, recorder = gateway()
    agent = Agent(
        calling("weather", {"city": "Oslo", "user_id": "admin"}, []),
        deps_type=str,
        toolsets=[ToolweaveToolset(server, context=per_user)],
    )
    output = (await agent.run("weather?", deps="u-7")).output
    assert output.startswith("retry: ") and "user_id" in output
    assert recorder.calls == []


async def test_the_toolset_starts_the_server_so_http_api_tools_work() -> None:
    """An OpenAPI server needs its pooled client: the agent entering the toolset starts it."""
    from tests.openapi.petstore import petstore
    from tests.serving import served
    from toolweave import RemoteServer

    with served(petstore()) as url:  # in a thread: fetching the spec is a blocking call
        api = RemoteServer.openapi(f"{url}/openapi.json", base_url=url)
        agent = Agent(calling("get_pet", {"pet_id": 1}, []), toolsets=[ToolweaveToolset(api)])
        output = (await agent.run("pet 1?")).output
    assert output == repr({"name": "Rex", "tag": "dog", "id": 1})
    assert not api.running


async def test_names_a_model_provider_refuses_are_shown_as_names_it_accepts_and_call_their_tools() -> None:
    seen: list[AgentInfo] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        returned = [part.content for part in messages[-1].parts if isinstance(part, ToolReturnPart)]
        if returned:
            return ModelResponse(parts=[TextPart(repr(sorted(returned)))])
        return ModelResponse(parts=[ToolCallPart(tool.name, {}) for tool in info.function_tools])

    agent = Agent(FunctionModel(respond), toolsets=[ToolweaveToolset(dotted())])
    result = await agent.run("search")
    names = [tool.name for tool in seen[0].function_tools]
    assert all(PROVIDER_NAME.fullmatch(name) for name in names) and len(set(names)) == 3
    assert result.output == repr(sorted(["gh.search", "gh_search", LONG]))
