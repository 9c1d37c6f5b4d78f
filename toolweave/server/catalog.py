"""The compiled catalog: exposed name → (exposed tool, prebuilt call path).

A server compiles its catalog once and again only when something changes. Listing is a cached
tuple; a call is one dict lookup, one validation and one awaited chain. Transforms were applied
and middleware chains folded at compile time.

Example:
    catalog = server.catalog
    [tool.name for tool in catalog.tools]
    # -> ['add', 'search']
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolweave.core.context import Context
from toolweave.core.errors import InputRequired, InvalidArguments, MissingCapability, UnknownTool
from toolweave.core.masking import ErrorPolicy, is_cancellation
from toolweave.core.output import OutputCheck
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.core.validation import ArgumentErrors
from toolweave.middleware.base import Handler, Middleware, ToolCall, build_chain, chain_for, tool_runner
from toolweave.middleware.keys import caller_key


@dataclass(frozen=True, slots=True)
class Entry:
    """One exposed tool: the tool, where it came from, its chain and its error policy."""

    tool: Tool
    origin: str
    chain: tuple[Middleware, ...]
    handler: Handler | None
    errors: ErrorPolicy
    check: OutputCheck

    @classmethod
    def build(cls, tool: Tool, origin: str, middleware: tuple[Middleware, ...], errors: ErrorPolicy) -> Entry:
        """Fold the middleware that applies to `tool` into its call path, once."""
        chain = chain_for(middleware, tool) if middleware else ()
        handler = build_chain(chain, tool_runner(tool)) if chain else None
        check = OutputCheck(tool.output_schema, validate=not tool.output_checked)
        return cls(tool, origin, chain, handler, tool.error_policy or errors, check)



@dataclass(slots=True)
class Catalog:
    """The compiled view of a server's tools. Immutable once built, except its adapter cache."""

    entries: dict[str, Entry]
    tools: tuple[Tool, ...]
    reject_extra: bool = True
    list_middleware: tuple[Middleware, ...] = ()
    cache: dict[str, Any] = field(default_factory=dict)
    """Scratch space for adapters (e.g. the wire form of `tools/list`), dropped with the catalog."""

    def get(self, name: str) -> Entry:
        """The entry of an enabled tool, or `UnknownTool`."""
        entry = self.entries.get(name)
        if entry is None:
            raise UnknownTool(name)
        return entry

    async def call(self, name: str, arguments: dict[str, Any] | None, ctx: Context) -> ToolResult:
        """Validate and run one call; failures are `isError` results, except the two protocol errors.

        Raises:
            UnknownTool: no enabled tool has that name.
            MissingCapability: the tool needs a client capability the client did not declare.
            InputRequired: the tool needs input from the client first.
        """
        entry = self.entries.get(name)
        if entry is None:
            raise UnknownTool(name)
        try:
            validated = entry.tool.validator.validate(arguments or {}, reject_extra=self.reject_extra)
        except ArgumentErrors as problems:
            if problems.spoofed:
                _spoofing(name, problems.spoofed, ctx)
            return ToolResult.error(str(InvalidArguments(name, problems.problems)))
        try:
            if entry.handler is None:
                result = await entry.tool.run(validated, ctx)
            else:
                result = await entry.handler(ToolCall(entry.tool, validated, ctx))
            entry.check(result)
            return result
        except (MissingCapability, InputRequired):
            raise
        except BaseException as error:  # SystemExit, KeyboardInterrupt... from a tool: masked too
            if is_cancellation(error):
                raise
            return entry.errors.to_result(name, error)

    async def list_tools(self, ctx: Context) -> list[Tool]:
        """The tools to list for this request (per-request middleware filters, if any)."""
        tools = list(self.tools)
        for layer in self.list_middleware:
            tools = await layer.on_list_tools(tools, ctx)
        return tools


Listener = Callable[[], None]
security = logging.getLogger("toolweave.security")


def _spoofing(tool: str, names: tuple[str, ...], ctx: Context) -> None:
    """Log a client sending arguments the server sets (refused like any unexpected argument)."""
    security.warning(
        "caller %s sent %s to tool %r: set by the server, refused", caller_key(ctx), ", ".join(map(repr, names)), tool
    )
