"""The cost of a call answered with a task, against the same call answered plainly.

One tool, called through the official `mcp` client in memory (2026-07-28): a client that did not
opt in gets the plain call; one that declared `io.modelcontextprotocol/tasks` gets a task. Rows:
the plain call; the `tools/call` that creates the task (answered before the work runs); creating
the task and reading it completed with `tasks/get` (the work done in the background meanwhile);
the `tools/call` that creates a task for a tool that takes 10 seconds (target: under 50 ms).

Run: `python -m benchmarks.bench_tasks [--quick]`.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp

from benchmarks.bench_mounts import _print
from benchmarks.timing import Row, interleaved
from toolweave import Server
from toolweave.tasks import TasksExtension, configure_tasks
from toolweave.tasks.client import CreateTaskResult, GetTask, TaskState
from toolweave.tasks.serving import GetTaskParams

GROUP = "tasks (in memory)"


def server() -> Server:
    app = Server("bench")

    @app.tool(task_support="optional")
    async def echo(text: str) -> str:
        return text

    @app.tool(task_support="optional")
    async def ten_seconds() -> str:
        await anyio.sleep(10)
        return "done"

    # one caller runs thousands of 10-second tasks at once here, which the default bound refuses
    configure_tasks(app, max_per_caller=1_000_000)
    return app


async def collect(quick: bool) -> list[Row]:
    """Rows for the task benchmarks (see the module docstring)."""
    calls, rounds = (50, 3) if quick else (500, 7)
    app, args = server(), {"text": "hi"}
    async with mcp.Client(app.as_mcp()) as plain, mcp.Client(app.as_mcp(), extensions=[TasksExtension()]) as tasks:

        async def create(name: str = "echo", arguments: dict[str, Any] = args) -> Any:
            created = await tasks.session.call_tool(name, arguments, allow_claimed=True)
            assert isinstance(created, CreateTaskResult)
            return created

        async def create_and_complete() -> None:
            created = await create()
            request = GetTask(params=GetTaskParams(taskId=created.task_id))
            while (await tasks.session.send_request(request, TaskState)).status != "completed":
                await anyio.lowlevel.checkpoint()

        timings = await interleaved(
            {
                "plain": lambda: plain.call_tool("echo", args),
                "create": create,
                "long": lambda: create("ten_seconds", {}),
                "complete": create_and_complete,
            },
            rounds=rounds,
            number=calls,
            warmup=20,
        )
    base = "plain call (client did not opt in)"
    return [
        Row(GROUP, base, timings["plain"]),
        Row(GROUP, "task created (the tools/call answer)", timings["create"], base),
        Row(GROUP, "task created, then read completed (tasks/get)", timings["complete"], base),
        Row(GROUP, "task created for a 10-second tool", timings["long"], base, "< 50 ms"),
    ]


if __name__ == "__main__":
    _print(anyio.run(collect, "--quick" in sys.argv))
