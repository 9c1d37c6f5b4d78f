"""OpenAI Agents SDK FunctionTools against the real SDK, invoked the way its runner invokes them."""

from __future__ import annotations

import json
from typing import Any

from tests.optional import require

require("agents", "the openai-agents extra is not installed")

from agents import FunctionTool
from agents.tool_context import ToolContext

from tests.adapters.gateway import LONG, PROVIDER_NAME, dotted, gateway
from toolweave import AuthInfo, Context
from toolweave.adapters.openai_agents import function_tools


def per_user(ctx: ToolContext[Any]) -> Context:
    return Context(auth=AuthInfo(subject=ctx.context["user"]))


async def invoke(tool: FunctionTool, arguments: Any, user: str = "u-7") -> Any:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    ctx = ToolContext(context={"user": user}, tool_name=tool.name, tool_call_id="c1", tool_arguments=raw)
    return await tool.on_invoke_tool(ctx, raw)


def tools() -> tuple[dict[str, FunctionTool], Any]:
    server, recorder = gateway()
    return {tool.name: tool for tool in function_tools(server, context=per_user)}, recorder


async def test_a_call_goes_through_the_catalog_with_the_callers_context() -> None:
    by_name, recorder = tools()
    output = await invoke(by_name["weather"], {"city": "Oslo"})
    assert json.loads(output) == {"city": "Oslo", "sky": "clear", "for": "u-7"}
    assert [c.tool.name for c in recorder.calls] == ["weather"]


def test_the_model_sees_only_the_exposed_arguments() -> None:
    by_name, _ = tools()
    assert list(by_name["weather"].params_json_schema["properties"]) == ["city"]
    assert by_name["forecast"].description == "A forecast for the next days."


async def test_errors_are_answers_the_model_can_read() -> None:
    by_name, recorder = tools()
    assert await invoke(by_name["forecast"], {"days": 9}) == "Error: at most 7 days"
    not_json = await invoke(by_name["forecast"], "{not json")
    assert not_json == "Error: the arguments of tool 'forecast' are not valid JSON"
    spoofed = await invoke(by_name["weather"], {"city": "Oslo", "user_id": "admin"})
    assert spoofed.startswith("Error: ") and "user_id" in spoofed
    assert [c.tool.name for c in recorder.calls] == ["forecast"]


async def test_arguments_nested_past_the_recursion_limit_are_an_error_output() -> None:
    """The JSON decoder recurses per level: its `RecursionError` ended the agent's run."""
    by_name, recorder = tools()
    deep = '{"days": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert await invoke(by_name["forecast"], deep) == "Error: the arguments of tool 'forecast' are nested too deeply"
    assert recorder.calls == []


async def test_names_a_model_provider_refuses_are_shown_as_names_it_accepts_and_call_their_tools() -> None:
    tools = function_tools(dotted())
    assert all(PROVIDER_NAME.fullmatch(tool.name) for tool in tools) and len({tool.name for tool in tools}) == 3
    assert sorted([await invoke(tool, {}) for tool in tools]) == sorted(["gh.search", "gh_search", LONG])
