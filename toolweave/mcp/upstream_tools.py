"""The tools of an upstream, as toolweave `Tool`s that call it (`UpstreamTools`).

`UpstreamTools.refresh` lists the upstream's tools (following cursors: `all_pages`) and hands them to the
`RemoteServer`, unless the list is the one handed over last (no spurious `list_changed`). Each
`Tool` keeps the upstream's name, title, description, schemas and annotations; toolweave's tags
and task support come out of its `_meta`, the rest of `_meta` stays. Calling it is one call of
`call` (the `Upstream`'s), a tool listed with task support marked `long_running`. A tool whose
name toolweave cannot expose (outside `[A-Za-z0-9_.-]{1,128}`) is skipped with a warning, and so
is one whose input schema JSON Schema cannot apply (`shape_problem`: `type: file`, `required: true`
on a property, a `$ref` to nothing): every call of it was an internal error. An output schema JSON
Schema cannot apply is dropped with a warning instead: the tool works, and its results pass as
they come rather than each failing the check of a promise nobody can read.

Without toolweave's `_meta` key, the 2025-11-25 field `execution.taskSupport` (servers on the
SDKs' experimental tasks, SEP-1686) is the tool's task support when the gateway can drive the
upstream's tasks: over a 2026-07-28 session (the tasks extension). Over the 2025 handshake it
cannot (it does not speak SEP-1686 tasks): a `required` tool, which refuses every plain call, is
skipped with a warning naming the upstream and the tool; an `optional` one keeps its task support
and is called plainly (inside a gateway task of its own when the client asks for one), as a
toolweave upstream's task tool is over the handshake. Only toolweave's own key
(`toolweave_task_support`) says the upstream serves the 2026-07-28 tasks extension.

Example:
    >>> import anyio
    >>> from toolweave.server.remote import RemoteServer
    >>> async def call(name, arguments, ctx, *, long_running=False):  # as `Upstream.call`
    ...     return ToolResult(structured_content={"called": name, "long_running": long_running})
    >>> tools = UpstreamTools(RemoteServer.http("https://notes.example/mcp", name="notes"), call)
    >>> wire = mt.Tool(name="search", input_schema={"type": "object"}, meta={TASK_SUPPORT_META_KEY: "optional"})
    >>> tool = tools.tool(wire)
    >>> tool.task_support, tool.origin.source
    ('optional', 'notes (https://notes.example/mcp)')
    >>> anyio.run(tool.run, {"q": "anyio"}, Context()).structured_content
    {'called': 'search', 'long_running': True}
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import mcp.types as mt
from mcp import ClientSession

from toolweave.core.context import Context
from toolweave.core.names import NAME_PATTERN
from toolweave.core.result import WRAP_KEY, ToolResult
from toolweave.core.schema_shapes import shape_problem
from toolweave.core.tool import TASK_SUPPORT, Origin, Tool
from toolweave.mcp.convert import FASTMCP_WRAP_KEY, TAGS_META_KEY, TASK_SUPPORT_META_KEY, annotations_from_mcp
from toolweave.mcp.upstream_components import all_pages

if TYPE_CHECKING:
    from toolweave.server.remote import RemoteServer

logger = logging.getLogger("toolweave.upstream")


class CallTool(Protocol):
    """Calls the upstream's tool `name` (`Upstream.call`)."""

    def __call__(
        self, name: str, arguments: dict[str, Any], ctx: Context, *, long_running: bool = False
    ) -> Awaitable[ToolResult]: ...


class UpstreamTools:
    """Lists `remote`'s upstream tools and builds the `Tool`s that run them with `call`."""

    def __init__(self, remote: RemoteServer, call: CallTool, era: Callable[[], str | None] = lambda: None) -> None:
        self._remote = remote
        self._call = call
        self._era = era
        """The era the upstream is spoken to in now (`Upstream.era`)."""
        self._name_ok = NAME_PATTERN.fullmatch
        self._listed: list[dict[str, Any]] | None = None
        self.toolweave_task_support: list[str] = []
        """The task support of the tools listed last with toolweave's own `_meta` key (which
        says the upstream serves the 2026-07-28 tasks extension)."""

    async def refresh(self, session: ClientSession) -> None:
        """List the upstream's tools over `session` and hand them to the remote if they changed."""
        listed: list[mt.Tool] = await all_pages(
            lambda params: session.list_tools(params=params), "tools", self._remote.name
        )
        wire = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed]
        if wire == self._listed:
            return
        self._listed = wire
        self.toolweave_task_support = [
            str(item.meta[TASK_SUPPORT_META_KEY]) for item in listed if item.meta and TASK_SUPPORT_META_KEY in item.meta
        ]
        tools = []
        for item in listed:
            if not self._name_ok(item.name):
                logger.warning("[%s] skipping upstream tool %r: not a valid name", self._remote.name, item.name)
                continue
            if self._task_support(item) == "unreachable":
                logger.warning(
                    "[%s] skipping upstream tool %r: it runs only as a task (execution.taskSupport 'required', "
                    "the 2025-11-25 experimental tasks), which the gateway cannot drive over the 2025 handshake",
                    self._remote.name,
                    item.name,
                )
                continue
            usable = self._usable(item)
            if usable is not None:
                tools.append(self.tool(usable))
        self._remote.set_remote_tools(tools)

    def _usable(self, wire: mt.Tool) -> mt.Tool | None:
        """`wire` as the gateway can serve it: None (with a warning) when JSON Schema cannot apply its
        input schema; without its output schema (with a warning) when it cannot apply that one."""
        problem = shape_problem(wire.input_schema)
        if problem is not None:
            logger.warning(
                "[%s] skipping upstream tool %r: its inputSchema cannot be applied: %s",
                self._remote.name,
                wire.name,
                problem,
            )
            return None
        problem = shape_problem(wire.output_schema) if wire.output_schema is not None else None
        if problem is None:
            return wire
        logger.warning(
            "[%s] upstream tool %r is served without its outputSchema, which cannot be applied: %s",
            self._remote.name,
            wire.name,
            problem,
        )
        return wire.model_copy(update={"output_schema": None})

    def _task_support(self, wire: mt.Tool) -> str:
        """The task support of `wire`: toolweave's `_meta` key, else its `execution.taskSupport`
        (`"unreachable"`: required, over a session where the gateway cannot drive its tasks)."""
        if wire.meta and TASK_SUPPORT_META_KEY in wire.meta:
            return str(wire.meta[TASK_SUPPORT_META_KEY])
        listed = wire.execution.task_support if wire.execution is not None else None
        if listed not in ("optional", "required"):
            return "none"
        if listed == "required" and self._era() != "2026":
            return "unreachable"
        return listed

    def tool(self, wire: mt.Tool) -> Tool:
        """The upstream's tool `wire`, as a `Tool` that calls it."""
        meta = dict(wire.meta) if wire.meta else {}
        tags = meta.pop(TAGS_META_KEY, None) or ()
        meta.pop(TASK_SUPPORT_META_KEY, None)
        task_support = self._task_support(wire)
        name = wire.name
        call = self._call
        long_running = task_support in ("optional", "required")

        async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            return await call(name, arguments, ctx, long_running=long_running)

        return Tool(
            name=name,
            input_schema=dict(wire.input_schema),
            run=run,
            title=wire.title,
            description=wire.description,
            output_schema=_output_schema(wire.output_schema),
            annotations=annotations_from_mcp(wire.annotations),
            tags=frozenset(tags),
            meta=meta or None,
            origin=Origin("remote", f"{self._remote.name} ({self._remote.target.describe()})", name),
            task_support=task_support if task_support in TASK_SUPPORT else "none",
        )


def _output_schema(wire: dict[str, Any] | None) -> dict[str, Any] | None:
    """The upstream's output schema, a copy. One that FastMCP marks as wrapping a bare value in
    `{"result": ...}` is marked as toolweave marks its own, so that `LimitResult`, `MapResult` and
    the adapters see the value the tool returned.

    Example:
        >>> _output_schema({"type": "object", "properties": {"result": {}}, "x-fastmcp-wrap-result": True})
        {'type': 'object', 'properties': {'result': {}}, 'x-fastmcp-wrap-result': True, 'x-toolweave-wrap-result': True}
    """
    if wire is None:
        return None
    schema = dict(wire)
    if schema.get(FASTMCP_WRAP_KEY) is True and "result" in (schema.get("properties") or {}):
        schema[WRAP_KEY] = True
    return schema
