"""A composed server's tools as OpenAI Agents SDK `FunctionTool`s (extra `toolweave[openai-agents]`).

The model sees the tools the caller may see (under `Authorize`), each with its exposed input
schema; a call parses the model's JSON arguments, runs through the server's catalog and answers
with the text (`model_answer`: structured content without text as its JSON, an image as one; an `isError` answer's
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

import dataclasses
import json
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from agents import FunctionTool, RunContextWrapper, ToolOutputImage, ToolOutputText
from agents.tool_context import ToolContext

from toolweave.adapters.answers import Part, error_text, model_answer
from toolweave.adapters.calls import CatalogCalls, ContextSource, by_model_name, parameters
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
    per_round = _ShownPerRound(calls) if calls.per_call or calls.list_filters() else None
    listed = by_model_name(calls.taken_once(calls.caller()))
    return [_function_tool(calls, shown, tool, per_round) for shown, tool in listed.items()]


class _ShownPerRound:
    """Each tool's `is_enabled`: whether `tools/list` shows it to the run's caller, one listing
    (`CatalogCalls.shown`) a round.

    Every time the SDK gathers an agent's tools it asks each tool's `is_enabled` once, at the
    same time; a list middleware that looks the caller up (in a store, an upstream) would be
    asked once a tool. One listing serves the round of a run and an agent, which ends when a tool
    is asked again (the next gathering lists anew); the tools asked while it is being made wait
    for it.
    """

    def __init__(self, calls: CatalogCalls) -> None:
        self.calls = calls
        self._rounds: weakref.WeakKeyDictionary[RunContextWrapper[Any], _Round] = weakref.WeakKeyDictionary()

    def for_tool(self, name: str) -> Callable[[RunContextWrapper[Any], Any], Awaitable[bool]]:
        """The `is_enabled` of tool `name`."""

        async def shown(run: RunContextWrapper[Any], agent: Any) -> bool:
            return name in await self.names(run, agent, name)

        return shown

    async def names(self, run: RunContextWrapper[Any], agent: Any, asking: str) -> frozenset[str]:
        """The names shown to `run`'s caller in the round tool `asking` belongs to."""
        current = self._rounds.get(run)
        if current is None or current.agent is not agent or asking in current.asked:
            current = self._rounds[run] = _Round(agent, {asking})
            try:
                current.names = await self._listing(run, asking)
            finally:
                current.done.set()
            return current.names
        current.asked.add(asking)
        await current.done.wait()
        # None: the round's listing failed (raising in its own tool): list again, to raise here too
        return current.names if current.names is not None else await self._listing(run, asking)

    async def _listing(self, run: RunContextWrapper[Any], asking: str) -> frozenset[str]:
        probe = ToolContext.from_agent_context(run, tool_call_id="", tool_name=asking, tool_arguments="")
        return await self.calls.shown(probe)


@dataclasses.dataclass(eq=False)
class _Round:
    """One round of `is_enabled` asks for one run and agent."""

    agent: Any
    asked: set[str]
    done: anyio.Event = dataclasses.field(default_factory=anyio.Event)
    names: frozenset[str] | None = None


def _function_tool(calls: CatalogCalls, shown: str, tool: Tool, per_round: _ShownPerRound | None) -> FunctionTool:
    name = tool.name

    async def invoke(ctx: ToolContext[Any], arguments_json: str) -> str | list[ToolOutputText | ToolOutputImage]:
        try:
            arguments = json.loads(arguments_json) if arguments_json.strip() else {}
        except ValueError:
            return f"Error: the arguments of tool {name!r} are not valid JSON"
        except RecursionError:  # the decoder recurses per level
            return f"Error: the arguments of tool {name!r} are nested too deeply"
        if not isinstance(arguments, dict):
            return f"Error: the arguments of tool {name!r} must be a JSON object"
        result = await calls.call(name, arguments, ctx)
        if result.is_error:
            return f"Error: {error_text(result, name)}"
        output = model_answer(result, calls.tool(name))
        return output if isinstance(output, str) else [_output(part) for part in output]

    return FunctionTool(
        name=shown,
        description=tool.description or name,
        params_json_schema=parameters(tool),
        on_invoke_tool=invoke,
        strict_json_schema=False,
        is_enabled=per_round.for_tool(name) if per_round is not None else True,
    )


def _output(part: Part) -> ToolOutputText | ToolOutputImage:
    """A part of an answer as an Agents SDK tool output (an image as a data URL, as the SDK's own
    MCP tools hand one on)."""
    if isinstance(part, str):
        return ToolOutputText(text=part)
    return ToolOutputImage(image_url=f"data:{part.mime_type};base64,{part.data}")
