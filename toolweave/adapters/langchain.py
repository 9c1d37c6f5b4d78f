"""A composed server's tools as LangChain `StructuredTool`s (extra `toolweave[langchain]`).

Each tool's arguments are the exposed input schema (hidden and injected arguments are not in
it, so the model never sees them); a call runs through the server's catalog and answers with
the text for the model and the structured content as the artifact. An `isError` answer is a
`ToolException` that the tool hands back to the model as its message.

Example:
    >>> import anyio
    >>> from toolweave import AuthInfo, Context
    >>> gateway = Server("ops")
    >>> @gateway.tool
    ... def whoami(ctx: Context) -> str:
    ...     return ctx.auth.subject if ctx.auth else "nobody"
    >>> def per_user(config: RunnableConfig) -> Context:
    ...     return Context(auth=AuthInfo(subject=config["configurable"]["user"]))
    >>> [tool] = structured_tools(gateway, context=per_user)  # for an agent: create_agent(model, tools)
    >>> anyio.run(lambda: tool.ainvoke({}, config={"configurable": {"user": "ada"}}))
    'ada'
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException

from toolweave.adapters.calls import CatalogCalls, ContextSource
from toolweave.core.tool import Tool
from toolweave.server.server import Server


def structured_tools(server: Server, *, context: ContextSource = None) -> list[StructuredTool]:
    """The tools `server` lists now, as LangChain tools; `context` gets the call's `RunnableConfig`.

    A server mounting remote servers lists their tools once it runs: make the tools inside
    `async with server:` (else `RuntimeError`, naming them). The tools are asynchronous: run them
    with `ainvoke` (`invoke` raises `NotImplementedError` saying so).
    """
    calls = CatalogCalls(server, context)
    return [_structured_tool(calls, tool) for tool in calls.taken_once()]


class _CatalogTool(StructuredTool):
    """A `StructuredTool` handing every argument to the catalog: `StructuredTool`'s own `_arun`
    takes `config` and `run_manager` for itself, so a tool argument of either name never arrived."""

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"tool {self.name!r} runs on the event loop of its server (upstream sessions live there): "
            "call it with `ainvoke` (an agent or graph run with `ainvoke`/`astream` does)"
        )

    async def _arun(  # type: ignore[override] # the run config under another name, on purpose
        self, *args: Any, toolweave_run_config: RunnableConfig, **arguments: Any
    ) -> Any:
        assert self.coroutine is not None
        return await self.coroutine(toolweave_run_config, arguments)


def _structured_tool(calls: CatalogCalls, tool: Tool) -> StructuredTool:
    name = tool.name

    async def run(run_config: RunnableConfig, arguments: dict[str, Any]) -> tuple[str, Any]:
        result = await calls.call(name, arguments, run_config)
        if result.is_error:
            raise ToolException(result.text or f"tool {name!r} failed")
        return result.text, result.structured_content

    return _CatalogTool(
        name=name,
        description=tool.description or name,
        args_schema=dict(tool.input_schema),
        coroutine=run,
        response_format="content_and_artifact",
        handle_tool_error=True,
        metadata={"toolweave_origin": tool.origin.source if tool.origin else None},
    )
