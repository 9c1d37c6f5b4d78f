"""A composed server's tools as a Pydantic AI toolset (extra `toolweave[pydantic-ai]`).

The toolset lists the server's tools at every run step (so tools a remote upstream adds appear),
as `tools/list` would for the run's caller (only those it may see, under `Authorize`), and calls
them through the server's catalog. An `isError` answer becomes `ModelRetry`, so the model reads
the message and may try again; entering the toolset (as an agent does) starts the server.

Example:
    >>> from pydantic_ai import Agent
    >>> from pydantic_ai.models.test import TestModel  # a model that calls each tool once, no LLM
    >>> from toolweave import AuthInfo, Context
    >>> support = Server("support")
    >>> @support.tool
    ... def greeting(ctx: Context) -> str:
    ...     return f"Hello, {ctx.auth.subject if ctx.auth else 'stranger'}!"
    >>> toolset = ToolweaveToolset(support, context=lambda run: Context(auth=AuthInfo(subject=run.deps)))
    >>> agent = Agent(TestModel(), deps_type=str, toolsets=[toolset])
    >>> import anyio
    >>> anyio.run(lambda: agent.run("Greet me", deps="ada")).output
    '{"greeting":"Hello, ada!"}'
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic_ai import BinaryContent, ModelRetry, RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from toolweave.adapters.answers import Part, error_text, model_answer, structured_value
from toolweave.adapters.calls import CatalogCalls, ContextSource, by_model_name, parameters
from toolweave.server.server import Server

_ARGUMENTS = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))
"""Pydantic AI's own pass on the arguments: a JSON object; the catalog validates the rest."""
_NAME = "toolweave_name"
"""The key of a tool's own name in its definition's `metadata` (the model sees `model_name(name)`)."""


class ToolweaveToolset(AbstractToolset[Any]):
    """`server`'s tools for a Pydantic AI agent.

    Args:
        server: The composed server.
        context: A `Context` per call, or `fn(run_context) -> Context` (see `toolweave.adapters`).
        id: The toolset's id (needed for durable execution); the server's name by default.
        max_retries: How often the model may retry a failing call (the agent's setting by default).
    """

    def __init__(
        self, server: Server, *, context: ContextSource = None, id: str | None = None, max_retries: int | None = None
    ) -> None:
        self.calls = CatalogCalls(server, context)
        self._id = id or server.name
        self.max_retries = max_retries

    @property
    def id(self) -> str | None:
        return self._id

    async def __aenter__(self) -> ToolweaveToolset:
        await self.calls.server.__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        return await self.calls.server.__aexit__(*args)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        retries = self.max_retries if self.max_retries is not None else ctx.max_retries
        return {
            shown: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=shown,
                    description=tool.description,
                    parameters_json_schema=parameters(tool),
                    metadata={_NAME: tool.name},
                ),
                max_retries=retries,
                args_validator=_ARGUMENTS,
            )
            for shown, tool in by_model_name(await self.calls.listed(ctx)).items()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        name = (tool.tool_def.metadata or {}).get(_NAME, name)  # the tool's own name (`model_name`)
        result = await self.calls.call(name, tool_args, ctx)
        if result.is_error:
            raise ModelRetry(error_text(result, name))
        own = self.calls.tool(name)
        if result.structured_content is not None:  # a value, as the tool returned it
            return structured_value(result, own)
        output = model_answer(result, own)
        return output if isinstance(output, str) else [_content(part) for part in output]


def _content(part: Part) -> str | BinaryContent:
    """A part of an answer as Pydantic AI takes it (an image as `BinaryContent`)."""
    if isinstance(part, str):
        return part
    return BinaryContent(data=base64.b64decode(part.data), media_type=part.mime_type)
