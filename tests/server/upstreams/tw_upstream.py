"""A small toolweave server run as a stdio (or HTTP) upstream by the remote-mount tests.

Usage: python tw_upstream.py [http PORT]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

from toolweave import Context, Message, Server, ToolError, ToolResult
from toolweave.core.content import TextContent

server = Server("tw-upstream")


@server.tool(annotations={"readOnlyHint": True}, tags={"demo"})
def echo(text: str) -> dict[str, str]:
    """Echo text back.

    Args:
        text: What to echo.
    """
    return {"echo": text}


@server.tool
async def count(steps: int, ctx: Context) -> str:
    """Report progress `steps` times."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted {steps}"


@server.tool
async def sleep(seconds: float, marker: str = "", started: str = "") -> str:
    """Sleep; touch `started` (a file path) first, and write `marker` with how it ended."""
    if started:
        Path(started).touch()  # noqa: ASYNC240 - a tiny test file
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        if marker:
            Path(marker).write_text("cancelled")  # noqa: ASYNC240 - must not await while cancelled
        raise
    if marker:
        Path(marker).write_text("finished")  # noqa: ASYNC240 - a tiny test file
    return "slept"


@server.tool
def fail(message: str = "boom") -> str:
    """Fail with a tool error."""
    raise ToolError(message)


@server.tool
def raw() -> ToolResult:
    """Return an isError result with structured content and `_meta` (one key of it in the
    protocol's own namespace), by hand."""
    meta = {"io.modelcontextprotocol/serverInfo": {"name": "upstream-itself", "version": "0"}, "acme.com/trace": "t-1"}
    return ToolResult([TextContent("half done")], structured_content={"done": 1}, is_error=True, meta=meta)


@server.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
def loose() -> ToolResult:
    """Return structured content that does not match the declared output schema."""
    return ToolResult([TextContent("off-schema")], structured_content={"n": "not a number"})


@server.tool
def pid() -> int:
    """This process's id."""
    return os.getpid()


@server.tool
def grow(name: str) -> str:
    """Add a tool called `name` (the upstream then sends list_changed)."""
    server.add_tool(lambda: name, name=name, description=f"grown {name}")
    return f"grew {name}"


@server.prompt(title="Code review", tags={"demo"})
def review(code: str, style: str = "terse") -> list[object]:
    """Ask for a code review.

    Args:
        code: The code to review.
        style: How the review is written.
    """
    return [f"Review this ({style}):\n{code}", Message("Sure.", role="assistant")]


@server.resource("resource://cities", description="Known cities")
def cities() -> list[str]:
    return ["Paris", "Lima"]


@server.resource("resource://logo", mime_type="image/png")
def logo() -> bytes:
    return b"\x89PNG-not-really"


@server.resource("resource://{city}/weather", mime_type="text/plain")
def weather(city: str) -> str:
    """The weather of a city."""
    return f"sunny in {city}"


@server.resource("resource://forecast/{days}")
def forecast(days: int) -> str:
    """A forecast for a number of days (`days` must be a number)."""
    return f"{days} days of sun"


@server.tool
def grow_components(name: str) -> str:
    """Add a prompt and a resource called `name` (the upstream then sends both list_changed)."""
    server.add_prompt(lambda: f"grown {name}", name=name)
    server.add_resource(lambda: f"grown {name}", f"resource://grown/{name}", name=name)
    return f"grew {name}"


if __name__ == "__main__":
    print("tw-upstream starting", file=sys.stderr, flush=True)
    if sys.argv[1:2] == ["http"]:
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
