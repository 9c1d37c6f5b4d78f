"""Test helpers for toolweave users: an in-memory MCP client, a recording middleware, fake tools.

Example:
    >>> import anyio
    >>> server = Server("calc")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> async def check() -> int:
    ...     async with connect(server) as client:
    ...         return (await client.call_tool("add", {"a": 1, "b": 2})).structured_content["result"]
    >>> anyio.run(check)
    3
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from toolweave.core.context import Context
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.server.server import Server


def connect(server: Server, *, mode: str = "auto", **options: Any) -> Any:
    """An official `mcp.Client` connected to `server` in memory (`mode="legacy"` for the 2025 handshake)."""
    import mcp

    return mcp.Client(server.as_mcp(), mode=mode, **options)


@dataclass
class RecordingMiddleware(Middleware):
    """Records every call it sees (`calls`) and the order it was entered in (`log`, shared).

    Example:
        >>> import anyio
        >>> log: list[str] = []
        >>> outer, inner = RecordingMiddleware("outer", log), RecordingMiddleware("inner", log)
        >>> server = Server("demo", middleware=[outer, inner])
        >>> _ = server.add_tool(lambda: "done", name="work")
        >>> anyio.run(server.call_tool, "work").text, [call.tool.name for call in outer.calls]
        ('done', ['work'])
        >>> log
        ['enter outer', 'enter inner', 'exit inner', 'exit outer']
    """

    label: str = "recorder"
    log: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    tools: Any = None

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        self.calls.append(call)
        self.log.append(f"enter {self.label}")
        try:
            return await call_next(call)
        finally:
            self.log.append(f"exit {self.label}")

    @property
    def name(self) -> str:
        return self.label


def fake_tool(
    name: str,
    schema: dict[str, Any] | None = None,
    *,
    reply: Callable[[dict[str, Any], Context], Awaitable[ToolResult]] | None = None,
    **fields: Any,
) -> Tool:
    """A schema-only tool that echoes its arguments as structured content (or runs `reply`)."""

    async def echo(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        return ToolResult(structured_content=dict(arguments))

    return Tool(
        name=name,
        input_schema=schema or {"type": "object", "properties": {}},
        run=reply or echo,
        **fields,
    )
