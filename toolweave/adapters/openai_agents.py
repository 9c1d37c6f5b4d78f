"""A composed server's tools as OpenAI Agents SDK `FunctionTool`s (extra `toolweave[openai-agents]`).

The model sees the tools the caller may see (under `Authorize`), each with its exposed input
schema; a call parses the model's JSON arguments, runs through the server's catalog and answers
with the text (`model_text`: structured content without text as its JSON; an `isError` answer's
message included, so the model reads why, a tool the caller may not use too). `context` gets
the SDK's `ToolContext` (`ctx.context` is your own run context): with a function, each tool is
listed to a run only if `tools/list` would show the tool to the caller it gives (the tool's
`is_enabled`, asked with a `ToolContext` of no call), through the server's list middleware too.

Example:
    >>> import anyio
    >>> from toolweave import AuthInfo, Context
    >>> def per_user(ctx: ToolContext[Any]) -> Context:  # `ctx.context` is the agent's run context
    ...     return Context(auth=AuthInfo(subject=ctx.context["user"]))
    >>> crm = Server("crm")
    >>> @crm.tool
    ... def my_accounts(ctx: Context) -> list[str]:
    ...     return [f"{ctx.auth.subject}-main"] if ctx.auth else []
    >>> [tool] = function_tools(crm, context=per_user)  # for an agent: Agent(name="crm", tools=[tool])
    >>> run = ToolContext(context={"user": "ada"}, tool_name=tool.name, tool_call_id="c1", tool_arguments="{}")
    >>> anyio.run(tool.on_invoke_tool, run, "{}")  # as the agent's runner calls it
    '["ada-main"]'
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool, RunContextWrapper
from agents.tool_context import ToolContext

from toolweave.adapters.calls import CatalogCalls, ContextSource, by_model_name, error_text, model_text, parameters
from toolweave.core.tool import Tool
from toolweave.server.server import Server


def function_tools(server: Server, *, context: ContextSource = None) -> list[FunctionTool]:
    """The tools `server` lists now, as OpenAI Agents SDK function tools.

    A server mounting remote servers lists their tools once it runs: make the tools inside
    `async with server:` (else `RuntimeError`, naming them). With `context` a `Context` (or
    none), the tools are those its caller may see; with a function, those each run's caller may.
    A server with middleware that filters each listing (`on_list_tools`) filters them per run too:
    each tool's `is_enabled` awaits the listing `tools/list` would give the run's caller.
    """
    calls = CatalogCalls(server, context)
    return [
        _function_tool(calls, shown, tool) for shown, tool in by_model_name(calls.taken_once(calls.caller())).items()
    ]


def _shown_to_run(calls: CatalogCalls, name: str) -> Callable[[RunContextWrapper[Any], Any], Awaitable[bool]]:
    """A tool's `is_enabled`: whether `tools/list` shows it to this run's caller (`CatalogCalls.shows`)."""

    async def shown(run: RunContextWrapper[Any], agent: Any) -> bool:
        probe = ToolContext.from_agent_context(run, tool_call_id="", tool_name=name, tool_arguments="")
        return await calls.shows(name, probe)

    return shown


def _function_tool(calls: CatalogCalls, shown: str, tool: Tool) -> FunctionTool:
    name = tool.name

    async def invoke(ctx: ToolContext[Any], arguments_json: str) -> str:
        try:
            arguments = json.loads(arguments_json) if arguments_json.strip() else {}
        except ValueError:
            return f"Error: the arguments of tool {name!r} are not valid JSON"
        except RecursionError:  # the decoder recurses per level
            return f"Error: the arguments of tool {name!r} are nested too deeply"
        if not isinstance(arguments, dict):
            return f"Error: the arguments of tool {name!r} must be a JSON object"
        result = await calls.call(name, arguments, ctx)
        return f"Error: {error_text(result, name)}" if result.is_error else model_text(result, calls.tool(name))

    return FunctionTool(
        name=shown,
        description=tool.description or name,
        params_json_schema=parameters(tool),
        on_invoke_tool=invoke,
        strict_json_schema=False,
        is_enabled=_shown_to_run(calls, name) if calls.per_call or calls.list_filters() else True,
    )
