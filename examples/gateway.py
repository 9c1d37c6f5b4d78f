"""A gateway: one MCP server exposing a local server and a stdio upstream, each under a prefix.

- `math_*` tools come from a local toolweave server, mounted live;
- `notes_*` tools come from `notes_server.py`, started as a subprocess and reached over stdio
  through one persistent MCP session (restarted with backoff if it dies);
- one middleware, selected by glob, logs every `notes_*` call.

Run:
    python examples/gateway.py          # serve the gateway over stdio (point an MCP client at it)
    python examples/gateway.py --demo   # call a few tools in-process and print the results
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from toolweave import Server
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.server.remote import RemoteServer

HERE = Path(__file__).resolve().parent
logger = logging.getLogger("gateway")


class LogCalls(Middleware):
    """Log each call's tool name (a stand-in for real policy: timeouts, rate limits...)."""

    tools = "notes_*"

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> Any:
        logger.info("calling %s", call.tool.name)
        return await call_next(call)


def build() -> Server:
    """The gateway: a local `math` server under `math_`, the notes upstream under `notes_`."""
    math = Server("math")

    @math.tool
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    notes = RemoteServer.stdio(
        sys.executable,
        [str(HERE / "notes_server.py")],
        # the child only inherits a minimal environment; pass PYTHONPATH so a checkout works too
        env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    gateway = Server("gateway", middleware=[LogCalls()])
    gateway.mount(math, prefix="math")
    gateway.mount(notes, prefix="notes")
    return gateway


async def demo() -> None:
    """Start the gateway in-process, list its tools and call a few."""
    gateway = build()
    async with gateway:
        print("tools:", ", ".join(tool.name for tool in await gateway.list_tools()))
        print("math_add:", (await gateway.call_tool("math_add", {"a": 2, "b": 3})).text)
        saved = await gateway.call_tool("notes_write", {"title": "todo", "text": "ship"})
        print("notes_write:", saved.text)
        print("notes_read:", (await gateway.call_tool("notes_read", {"title": "todo"})).text)
        print("notes_read missing:", (await gateway.call_tool("notes_read", {"title": "nope"})).text)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if "--demo" in sys.argv:
        anyio.run(demo)
    else:
        build().run()
