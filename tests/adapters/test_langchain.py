"""LangChain StructuredTools against the real langchain-core, invoked as an agent would."""

from __future__ import annotations

from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")

from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from tests.adapters.gateway import LONG, PROVIDER_NAME, dotted, gateway
from toolweave import AuthInfo, Context
from toolweave.adapters.langchain import structured_tools


def per_user(config: Any) -> Context:
    return Context(auth=AuthInfo(subject=config["configurable"]["user"]))


def by_name(tools: list[StructuredTool]) -> dict[str, StructuredTool]:
    return {tool.name: tool for tool in tools}


async def test_a_tool_call_returns_text_and_the_structured_artifact() -> None:
    server, recorder = gateway()
    weather = by_name(structured_tools(server, context=per_user))["weather"]
    call = {"type": "tool_call", "id": "c1", "name": "weather", "args": {"city": "Oslo"}}
    message = await weather.ainvoke(call, config={"configurable": {"user": "u-7"}})
    assert isinstance(message, ToolMessage)
    assert message.artifact == {"city": "Oslo", "sky": "clear", "for": "u-7"}
    assert '"for":"u-7"' in message.content
    assert [c.tool.name for c in recorder.calls] == ["weather"]


async def test_a_wrapped_result_is_the_bare_value_as_the_artifact() -> None:
    """A list is structured content as `{"result": [...]}`: the artifact is the list, as the tool
    returned it (and as the Pydantic AI toolset hands it on)."""
    server, _ = gateway()
    forecast = by_name(structured_tools(server))["forecast"]
    call = {"type": "tool_call", "id": "c1", "name": "forecast", "args": {"days": 2}}
    message = await forecast.ainvoke(call)
    assert message.artifact == ["sun", "sun"]
    assert message.content == '["sun","sun"]'


def test_the_model_sees_only_the_exposed_arguments() -> None:
    server, _ = gateway()
    weather = by_name(structured_tools(server))["weather"]
    assert weather.description == "Current weather in a city."
    shown = convert_to_openai_tool(weather)["function"]
    assert list(shown["parameters"]["properties"]) == ["city"]


async def test_an_error_result_is_handed_back_as_the_tool_message() -> None:
    server, _ = gateway()
    forecast = by_name(structured_tools(server))["forecast"]
    assert await forecast.ainvoke({"days": 9}) == "at most 7 days"
    assert await forecast.ainvoke({"days": 1}) == '["sun"]'


def test_a_sync_invoke_is_refused_saying_to_use_ainvoke() -> None:
    server, recorder = gateway()
    weather = by_name(structured_tools(server, context=per_user))["weather"]
    with pytest.raises(NotImplementedError, match=r"tool 'weather' runs on the event loop .*call it with `ainvoke`"):
        weather.invoke({"city": "Oslo"}, config={"configurable": {"user": "u-7"}})
    assert recorder.calls == []


async def test_names_a_model_provider_refuses_are_shown_as_names_it_accepts_and_call_their_tools() -> None:
    tools = structured_tools(dotted())
    names = [convert_to_openai_tool(tool)["function"]["name"] for tool in tools]
    assert all(PROVIDER_NAME.fullmatch(name) for name in names) and len(set(names)) == 3
    calls = [{"type": "tool_call", "id": f"c{n}", "name": tool.name, "args": {}} for n, tool in enumerate(tools)]
    answers = [(await tool.ainvoke(call)).content for tool, call in zip(tools, calls, strict=True)]
    assert sorted(answers) == sorted(["gh.search", "gh_search", LONG])
