"""A toolweave server on stdio with a task-capable tool (a remote upstream for the gateway tests).

Usage: python task_upstream.py [modern|handshake]. It speaks both eras (a gateway switches to the
2026-07-28 one, where its tools can answer with tasks); with `modern` it speaks only the 2026-07-28
protocol (`initialize` is refused); with `handshake` only the 2025 one (`server/discover` is refused).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
from mcp import MCPError

from tests.tasks.servers import approval
from toolweave import Context, Server
from toolweave.tasks import configure_tasks
from toolweave.tasks.record import TaskRecord
from toolweave.tasks.store import MemoryTaskStore

server = Server("task-upstream")


class SeenStore(MemoryTaskStore):
    """Remembers each task's latest status, for the `statuses` tool."""

    def __init__(self) -> None:
        super().__init__()
        self.statuses: dict[str, str] = {}

    async def put(self, record: TaskRecord) -> None:
        self.statuses[record.task_id] = record.status
        await super().put(record)


seen = SeenStore()
configure_tasks(server, store=seen)


@server.tool(task_support="optional")
async def deploy(env: str, seconds: float = 0.0, marker: str = "") -> str:
    """Deploy to an environment (takes `seconds`); its cleanup writes `marker`, a file, if given."""
    try:
        await anyio.sleep(seconds)
        return f"deployed to {env}"
    finally:
        if marker:
            Path(marker).write_text("cleaned up")  # noqa: ASYNC240 (a cancelled task's cleanup cannot await)


@server.tool(task_support="required")
def export(table: str) -> str:
    """Export a table (only as a task)."""
    return f"exported {table}"


@server.tool(task_support="optional")
async def build(ctx: Context, seconds: float = 1.0) -> str:
    """Report a step, then take `seconds`."""
    await ctx.report_progress(1, 2, "compiling")
    await anyio.sleep(seconds)
    return "built"


@server.tool(task_support="optional")
def approve(ctx: Context) -> str:
    """Ask who approves, then approve (a task-capable tool)."""
    return approval(ctx)


@server.tool
def approve_now(ctx: Context) -> str:
    """Ask who approves, then approve (never a task)."""
    return approval(ctx)


@server.tool
async def nap(seconds: float) -> str:
    """Take `seconds` (never a task)."""
    await anyio.sleep(seconds)
    return "rested"


@server.tool
def statuses() -> list[str]:
    """The latest status of each task this server ran, oldest first."""
    return list(seen.statuses.values())


@server.tool
def pid() -> int:
    """This process's id."""
    return os.getpid()


async def refuse_handshake(ctx: Any, call_next: Any) -> Any:
    if ctx.method == "initialize":
        data = {"supported": ["2026-07-28"]}
        raise MCPError(mt.UNSUPPORTED_PROTOCOL_VERSION, "this server speaks only 2026-07-28", data)
    return await call_next(ctx)


async def refuse_discover(ctx: Any, call_next: Any) -> Any:
    if ctx.method == "server/discover":
        raise MCPError(mt.METHOD_NOT_FOUND, "Method not found")
    return await call_next(ctx)


if __name__ == "__main__":
    from toolweave.mcp.serve import serve_stdio

    if sys.argv[1:] == ["modern"]:
        server.as_mcp().middleware.insert(0, refuse_handshake)
    if sys.argv[1:] == ["handshake"]:
        server.as_mcp().middleware.insert(0, refuse_discover)

    anyio.run(serve_stdio, server)
