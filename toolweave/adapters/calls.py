"""What every agent-framework adapter shares: the context of a call, the call, its answer.

Example:
    >>> import anyio
    >>> from toolweave import Server
    >>> server = Server("demo")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> calls = CatalogCalls(server)
    >>> result = anyio.run(calls.call, "add", {"a": 1, "b": 2}, None)
    >>> result.text, answer(result, calls.tool("add"))
    ('3', 3)
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Callable
from typing import Any

from toolweave.core.context import Context
from toolweave.core.result import WRAP_KEY, ToolResult
from toolweave.core.tool import Tool
from toolweave.server.server import Server

ContextSource = Context | Callable[[Any], Context] | None
"""A `Context` for every call (copied per call), or `fn(framework_run_context) -> Context`."""

_calls = itertools.count(1)
logger = logging.getLogger("toolweave.adapters")


class CatalogCalls:
    """Calls into `server`'s catalog on behalf of an agent framework.

    Args:
        server: The composed server.
        context: Where each call's `Context` comes from (see `ContextSource`).
    """

    def __init__(self, server: Server, context: ContextSource = None) -> None:
        if context is not None and not isinstance(context, Context) and not callable(context):
            raise TypeError(f"context must be a Context or a function returning one, not {type(context).__name__}")
        self.server = server
        self._context = context

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools a client of the server would list now."""
        return self.server.catalog.tools

    def taken_once(self) -> tuple[Tool, ...]:
        """The tools listed now, for an adapter that makes its tool objects once.

        Raises:
            RuntimeError: the server holds remote servers and is not running: their tools are
                not listed yet, and would be missing from the agent without a word.
        """
        remotes = self.server.remotes()
        if remotes and not self.server.running:
            names = ", ".join(repr(remote.name) for remote in remotes)
            raise RuntimeError(
                f"server {self.server.name!r} is not running, so the tools of {names} are not listed yet: "
                "make the tools inside `async with server:`"
            )
        down = self.server.down_remotes()
        if down:
            logger.warning("tools made while upstream(s) are down leave theirs out: %s", ", ".join(down))
        return self.tools

    def tool(self, name: str) -> Tool | None:
        """The exposed tool `name`, if the server lists one."""
        entry = self.server.catalog.entries.get(name)
        return entry.tool if entry is not None else None

    def context_for(self, run: Any) -> Context:
        """The `Context` of one call made within the framework's run context `run`."""
        source = self._context
        if source is None:
            ctx = Context()
        elif isinstance(source, Context):
            ctx = dataclasses.replace(source, request_id=f"agent-{next(_calls)}", state=dict(source.state))
        else:
            ctx = source(run)
            if not isinstance(ctx, Context):
                raise TypeError(f"the context function returned {type(ctx).__name__}, not a toolweave Context")
        return ctx if ctx.server is not None else dataclasses.replace(ctx, server=self.server)

    async def call(self, name: str, arguments: dict[str, Any], run: Any) -> ToolResult:
        """Call tool `name` as a client would; failures are `isError` results."""
        return await self.server.call_tool(name, arguments, ctx=self.context_for(run))


def answer(result: ToolResult, tool: Tool | None = None) -> Any:
    """What a framework hands the model: the structured content (unwrapped), else the text."""
    data = result.structured_content
    if data is None:
        return result.text
    if tool is not None and tool.output_schema and tool.output_schema.get(WRAP_KEY):
        return data.get("result")
    return data
