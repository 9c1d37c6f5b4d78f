"""The middleware chain of a tool a catalog transform adds: each middleware once per call.

A tool a catalog transform adds (`search_tools`, `list_prompts`, `get_prompt`, `read_resource`)
gets the server's middleware whose selection takes it, like any tool: a `Logging` line, a
`RateLimit` token, a `Timeout`, a `ConcurrencyLimit` slot. One that calls a catalog tool
(`SearchTools`' `call_tool`, see `CatalogTransform.reaches`) reaches that tool's own chain as
well, so a middleware that wraps both would run twice: count a call twice against a rate
limit, or wait on its own slot forever under `ConcurrencyLimit(1)`. So each middleware runs once
per call: around the tool reached when it wraps that tool (the log line, the rate bucket and
the pool are that tool's, and it sees that tool's own arguments after their transforms, as a
direct call would), else around the front tool (a name no tool has, one the caller may not
use, a tool the middleware does not select).

Example:
    >>> import anyio
    >>> from toolweave import SearchTools, Server
    >>> from toolweave.testing import RecordingMiddleware
    >>> recorder = RecordingMiddleware()
    >>> server = Server("demo", middleware=[recorder])
    >>> _ = server.add_tool(lambda: "done", name="work")
    >>> server.add_transform(SearchTools())
    >>> _ = anyio.run(server.call_tool, "search_tools", {"query": "work"})
    >>> _ = anyio.run(server.call_tool, "call_tool", {"name": "work"})
    >>> _ = anyio.run(server.call_tool, "call_tool", {"name": "nothing"})
    >>> [call.tool.name for call in recorder.calls]
    ['search_tools', 'work', 'call_tool']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.base import Handler, Middleware, ToolCall, build_chain, tool_runner

Reached = Callable[[ToolCall], Tool | None]
"""The catalog tool a call reaches, if it reaches one the caller may use (else `None`)."""


def front_chain(
    middleware: Sequence[Middleware], tool: Tool, reached: Reached | None
) -> tuple[tuple[Middleware, ...], Handler | None]:
    """The layers of `tool`'s chain (outermost first, as `explain` shows them) and the handler
    a call of it runs (`None`: no layer). With `reached`, a layer whose middleware wraps the tool
    a call reaches is left out of that call's chain (see the module docs)."""
    pairs = [(origin, layer) for origin in middleware if (layer := origin.for_tool(tool)) is not None]
    layers = tuple(layer for _, layer in pairs)
    if not layers:
        return (), None
    runner = tool_runner(tool)
    whole = build_chain(layers, runner)
    if reached is None:
        return layers, whole
    beneath: dict[str, Handler] = {}  # per tool reached (catalog names only: a bounded map)

    def handler(call: ToolCall) -> Awaitable[ToolResult]:
        target = reached(call)
        if target is None:
            return whole(call)
        step = beneath.get(target.name)
        if step is None:
            kept = [layer for origin, layer in pairs if origin.for_tool(target) is None]
            step = beneath[target.name] = build_chain(kept, runner)
        return step(call)

    return layers, handler
