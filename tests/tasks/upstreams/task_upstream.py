"""A toolweave server on stdio with a task-capable tool (a remote upstream for the gateway tests)."""

from __future__ import annotations

import os

import anyio

from toolweave import Server

server = Server("task-upstream")


@server.tool(task_support="optional")
async def deploy(env: str, seconds: float = 0.0) -> str:
    """Deploy to an environment (takes `seconds`)."""
    await anyio.sleep(seconds)
    return f"deployed to {env}"


@server.tool
def pid() -> int:
    """This process's id."""
    return os.getpid()


if __name__ == "__main__":
    from toolweave.mcp.serve import serve_stdio

    anyio.run(serve_stdio, server)
