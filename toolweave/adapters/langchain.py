"""A composed server's tools as LangChain `StructuredTool`s (extra `toolweave[langchain]`).

Each tool's arguments are the exposed input schema (hidden and injected arguments are not in
it, so the model never sees them); a call runs through the server's catalog and answers with
the text for the model and the structured content as the artifact (a wrapped `{"result": ...}`
as its bare value, as the tool returned it). An `isError` answer is a `ToolException` that the
tool hands back to the model as its message (a tool the caller may not use included). The
tools are made once, so they are those one caller may see (under `Authorize`): the caller of
`context`, anonymous without one; with a context function, the caller it gives for `config` if
you pass the agent's run config, else an anonymous one. `await astructured_tools(server)` lists
them through the server's list middleware too (`on_list_tools`), as `tools/list` would; a server
that has some refuses `structured_tools`, which cannot await it.

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

from langchain_core.messages.content import create_image_block, create_text_block
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException

from toolweave.adapters.answers import Part, error_text, model_answer, structured_value
from toolweave.adapters.calls import CatalogCalls, ContextSource, by_model_name, parameters
from toolweave.core.context import Context
from toolweave.core.tool import Tool
from toolweave.server.server import Server


def structured_tools(
    server: Server, *, context: ContextSource = None, config: RunnableConfig | None = None
) -> list[StructuredTool]:
    """The tools `server` lists now to one caller, as LangChain tools; `context` gets the call's
    `RunnableConfig`.

    The caller the tools are listed to is `context`'s (anonymous without one); a context function
    is asked for the caller of `config`, the run config of the agent they are for (without it,
    the tools are those an anonymous caller may see). Every call is still checked for its own caller.

    A server mounting remote servers lists their tools once it runs: make the tools inside
    `async with server:` (else `RuntimeError`, naming them). A server with middleware that filters
    each listing (`on_list_tools`) needs `await astructured_tools(...)`, which applies it (else
    `RuntimeError`, naming it). The tools are asynchronous: run them with `ainvoke` (`invoke` raises
    `NotImplementedError` saying so).
    """
    calls = CatalogCalls(server, context)
    listed = calls.taken_once(_listed_to(calls, config), awaited="`await astructured_tools(...)`")
    return [_structured_tool(calls, shown, tool) for shown, tool in by_model_name(listed).items()]


async def astructured_tools(
    server: Server, *, context: ContextSource = None, config: RunnableConfig | None = None
) -> list[StructuredTool]:
    """The tools `server` lists now to one caller (as `structured_tools`), through its list
    middleware too, as `tools/list` shows them to that caller.

    Example:
        >>> import anyio
        >>> from toolweave import Middleware
        >>> class Quiet(Middleware):  # a list middleware: no `drop_tables` in any listing
        ...     async def on_list_tools(self, tools, ctx):
        ...         return [tool for tool in tools if tool.name != "drop_tables"]
        >>> db = Server("db", middleware=[Quiet()])
        >>> @db.tool
        ... def drop_tables() -> str:
        ...     return "dropped"
        >>> @db.tool
        ... def count_rows() -> int:
        ...     return 3
        >>> [tool.name for tool in anyio.run(lambda: astructured_tools(db))]
        ['count_rows']
    """
    calls = CatalogCalls(server, context)
    listed = await calls.listed_once(_listed_to(calls, config))
    return [_structured_tool(calls, shown, tool) for shown, tool in by_model_name(listed).items()]


def _listed_to(calls: CatalogCalls, config: RunnableConfig | None) -> Context:
    """The caller the tools are listed to: `context`'s, a context function's for `config`, else anyone."""
    caller = calls.caller(config)
    return caller if caller is not None else Context()


class _CatalogTool(StructuredTool):
    """A `StructuredTool` handing every argument to the catalog, whatever its name: LangChain
    passes arguments as keywords beside its own (`config`, `run_manager`, the run config's
    parameter, `self`), so they travel here as one dictionary in a single positional argument."""

    def _to_args_and_kwargs(  # type: ignore[override] # one dictionary, not strings, on purpose
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[dict[str, Any]], dict[str, Any]]:
        _, arguments = super()._to_args_and_kwargs(tool_input, tool_call_id)
        return (arguments,), {}

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"tool {self.name!r} runs on the event loop of its server (upstream sessions live there): "
            "call it with `ainvoke` (an agent or graph run with `ainvoke`/`astream` does)"
        )

    async def _arun(  # type: ignore[override] # the arguments as one dictionary, on purpose
        self, arguments: dict[str, Any], /, toolweave_run_config: RunnableConfig
    ) -> Any:
        assert self.coroutine is not None
        return await self.coroutine(toolweave_run_config, arguments)


def _structured_tool(calls: CatalogCalls, shown: str, tool: Tool) -> StructuredTool:
    name = tool.name

    async def run(run_config: RunnableConfig, arguments: dict[str, Any]) -> tuple[str | list[Any], Any]:
        result = await calls.call(name, arguments, run_config)
        if result.is_error:
            raise ToolException(error_text(result, name))
        tool = calls.tool(name)
        content = model_answer(result, tool)
        blocks = content if isinstance(content, str) else [_block(part) for part in content]
        return blocks, structured_value(result, tool)

    return _CatalogTool(
        name=shown,
        description=tool.description or name,
        args_schema=parameters(tool),
        coroutine=run,
        response_format="content_and_artifact",
        handle_tool_error=True,
        metadata={"toolweave_origin": tool.origin.source if tool.origin else None},
    )


def _block(part: Part) -> Any:
    """A part of an answer as a LangChain content block (an image as its standard image block)."""
    if isinstance(part, str):
        return create_text_block(part)
    return create_image_block(base64=part.data, mime_type=part.mime_type)
