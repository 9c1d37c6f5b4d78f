"""What every agent-framework adapter shares: the context of a call, the call, the tools shown.

A framework's model is shown what a client of the server would list — only the tools the
caller may see (`Authorize`), after the server's list middleware (`on_list_tools`), as
`tools/list` shows them (`listed`, `shown`; an adapter that cannot await the middleware refuses
a server that has some, see `taken_once`) — and a call it makes anyway to a tool it may not use
(or that does not exist) is an `isError` answer, as any failure. A tool whose name a model
provider would refuse (a `.`, more than 64 characters) is shown under `model_name(name)` and
called under its own. What the model reads of an answer is `toolweave.adapters.answers`'.

Example:
    >>> import anyio
    >>> from toolweave import Server
    >>> server = Server("demo")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> calls = CatalogCalls(server)
    >>> result = anyio.run(calls.call, "add", {"a": 1, "b": 2}, None)
    >>> result.text, result.structured_content
    ('3', {'result': 3})
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import itertools
import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

from toolweave.core.context import Context
from toolweave.core.errors import DuplicateError, InputRequired, MissingCapability, UnknownTool
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.server.server import Server

ContextSource = Context | Callable[[Any], Context] | None
"""A `Context` for every call (copied per call), or `fn(framework_run_context) -> Context`."""

_MODEL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_MODEL_NAMES = re.compile(r"[^A-Za-z0-9_-]")
_calls = itertools.count(1)
_ASYNC_CONTEXT = (
    "the context function is async, and the adapters call it without awaiting (to list the tools, too): "
    "make it a plain function returning a Context"
)
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
        if callable(context) and _is_async(context):
            raise TypeError(_ASYNC_CONTEXT)
        self.server = server
        self._context = context

    @property
    def per_call(self) -> bool:
        """Whether the caller is known only per call (`context` is a function of the run)."""
        return self._context is not None and not isinstance(self._context, Context)

    def caller(self, run: Any = None) -> Context | None:
        """The caller known before any call: `context` itself, an anonymous one without it, the
        function's answer for `run` if given; None for a context function without a `run`."""
        if self.per_call and run is None:
            return None
        return self.context_for(run)

    def visible(self, caller: Context | None) -> tuple[Tool, ...]:
        """The tools `caller` may see, as `tools/list` shows them (every tool for None)."""
        catalog = self.server.catalog
        if caller is None:
            return catalog.tools
        return tuple(catalog.view("tools", catalog.tools, caller.auth)[1])

    async def listed(self, run: Any) -> list[Tool]:
        """The tools the caller of `run` may see, through the list middleware too, as `tools/list`."""
        return await self.server.list_tools(self.context_for(run))

    def list_filters(self) -> tuple[str, ...]:
        """The names of the server's middleware that filter each tool listing (`on_list_tools`):
        a listing that does not await them shows tools they may hide."""
        return tuple(layer.name for layer in self.server.catalog.list_middleware)

    async def shown(self, run: Any) -> frozenset[str]:
        """The names of the tools `tools/list` shows the caller of `run` (see `listed`)."""
        return frozenset(tool.name for tool in await self.listed(run))

    def taken_once(self, caller: Context | None, *, awaited: str | None = None) -> tuple[Tool, ...]:
        """The tools `caller` may see now (see `visible`), for an adapter that makes its tool objects once.

        Args:
            caller: Whose view to take (every tool for None).
            awaited: For an adapter that cannot filter its tools per run (by `shown`), the way to
                make them through the list middleware (see `listed_once`): a server with list
                middleware is refused, naming it. None: the adapter filters per run.

        Raises:
            RuntimeError: the server holds remote servers and is not running: their tools are
                not listed yet, and would be missing from the agent without a word; or it has
                list middleware that would not filter the tools (see `list_filters`).
        """
        filters = self.list_filters()
        if filters and awaited is not None:
            raise RuntimeError(
                f"server {self.server.name!r} filters each tool listing with {', '.join(filters)} "
                f"(on_list_tools), which tools made without awaiting it would not apply: make them with {awaited}"
            )
        self._ready_to_list()
        return self.visible(caller)

    async def listed_once(self, caller: Context | None) -> list[Tool]:
        """The tools `caller` may see now through the list middleware too, as `tools/list` shows
        them (an anonymous caller's for None), for an adapter that makes its tool objects once.

        Raises:
            RuntimeError: the server holds remote servers and is not running (see `taken_once`).
        """
        self._ready_to_list()
        return await self.server.list_tools(caller)

    def _ready_to_list(self) -> None:
        """Refuse to make tools once while remote servers are not started; warn of those down."""
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
            if inspect.iscoroutine(ctx):
                ctx.close()  # never awaited: no "was never awaited" warning on top of the error
                raise TypeError(_ASYNC_CONTEXT)
            if not isinstance(ctx, Context):
                raise TypeError(f"the context function returned {type(ctx).__name__}, not a toolweave Context")
        return ctx if ctx.server is not None else dataclasses.replace(ctx, server=self.server)

    async def call(self, name: str, arguments: dict[str, Any], run: Any) -> ToolResult:
        """Call tool `name` as a client would; failures are `isError` results, a tool the caller
        may not use (or that is gone) included: the model reads the message, as a client would.
        A tool that asks its client for input or a capability gets one too (see `unanswerable`).

        Example:
            >>> import anyio
            >>> from toolweave import Server
            >>> calls = CatalogCalls(Server("empty"))
            >>> anyio.run(calls.call, "rotate_keys", {}, None).text
            'Unknown tool: rotate_keys'
        """
        try:
            return await self.server.call_tool(name, arguments, ctx=self.context_for(run))
        except UnknownTool as error:
            return ToolResult.error(str(error))
        except (InputRequired, MissingCapability) as asked:
            return unanswerable(name, asked)


def _is_async(function: Callable[..., Any]) -> bool:
    """Whether calling `function` gives a coroutine: an async function, or an object whose `__call__` is one."""
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(type(function).__call__)


def unanswerable(name: str, asked: InputRequired | MissingCapability) -> ToolResult:
    """The answer to a call of tool `name` that asked its client for something (input from the
    user or the client's model, or a capability): an agent framework's call has no MCP client to
    ask, so it is an `isError` answer the model reads, and a warning for whoever runs the agent.

    Example:
        >>> from toolweave.core.input import elicit
        >>> unanswerable("book", InputRequired({"confirm": elicit("Book it?", {"type": "object"})})).text
        "tool 'book' needs input from an MCP client (elicitation/create), which a call from an agent cannot give"
    """
    if isinstance(asked, MissingCapability):
        needed = ", ".join(f"'{capability}'" for capability in asked.capabilities)
        message = f"tool {name!r} needs the MCP client capability {needed}, which a call from an agent does not have"
    else:
        methods = ", ".join(sorted({request.method for request in asked.requests.values()})) or "another round"
        message = f"tool {name!r} needs input from an MCP client ({methods}), which a call from an agent cannot give"
    logger.warning("%s: answered as an error", message)
    return ToolResult.error(message)


def model_name(name: str) -> str:
    """The name a model provider accepts for the tool `name`: itself when it fits
    `[A-Za-z0-9_-]{1,64}` (the strictest providers', OpenAI's and Anthropic's), else with other
    characters as `_`, cut to fit, and a short digest of `name`, so two such names never meet and
    a name stays the same from one listing to the next (a tool whose own name is another's model
    name is refused by `by_model_name`). Each adapter keeps the tool's own name for the call.

    Example:
        >>> model_name("gh_search"), model_name("gh.search")
        ('gh_search', 'gh_search_c5edd14c')
    """
    if _MODEL_NAME.fullmatch(name):
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{_NOT_IN_MODEL_NAMES.sub('_', name)[: 64 - len(digest) - 1]}_{digest}"


def by_model_name(tools: Iterable[Tool]) -> dict[str, Tool]:
    """`tools`, in order, under the names a model is shown (`model_name`).

    Raises:
        DuplicateError: two tools would be shown under one name (a tool named like another's model
            name: `gh_search_c5edd14c` beside `gh.search`), so a model's call could reach either.

    Example:
        >>> from toolweave.testing import fake_tool
        >>> list(by_model_name([fake_tool("gh.search"), fake_tool("gh_search")]))
        ['gh_search_c5edd14c', 'gh_search']
        >>> by_model_name([fake_tool("gh.search"), fake_tool("gh_search_c5edd14c")])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        toolweave.core.errors.DuplicateError: tools 'gh.search' and 'gh_search_c5edd14c' would both be ...
    """
    shown: dict[str, Tool] = {}
    for tool in tools:
        name = model_name(tool.name)
        taken = shown.setdefault(name, tool)
        if taken is not tool:
            raise DuplicateError(
                f"tools {taken.name!r} and {tool.name!r} would both be shown to a model as {name!r}: rename one of them"
            )
    return shown


def parameters(tool: Tool) -> dict[str, Any]:
    """The input schema of `tool` as a model provider takes it: a copy, with `"properties": {}`
    added when the schema has none. MCP lets a server leave it out (the official Go SDK does, for a
    tool without arguments), but OpenAI refuses such a function ("object schema missing
    properties"), failing the whole agent run. The tool's own schema is left as it is.

    Example:
        >>> from toolweave.testing import fake_tool
        >>> parameters(fake_tool("ping", {"type": "object"}))
        {'type': 'object', 'properties': {}}
    """
    schema = dict(tool.input_schema)
    schema.setdefault("properties", {})
    return schema
