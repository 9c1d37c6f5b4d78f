"""The toolweave server the conformance suite's tasks scenarios (`tasks-*`) run against.

The scenarios drive fixture tools by fixed names (`slow_compute`, `confirm_delete`, ...) over
streamable HTTP, with a client that declares the `io.modelcontextprotocol/tasks` extension:

    python -m tests.tasks.conformance_fixture PORT      # http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import sys

import anyio

from toolweave import Context, InputRequired, MissingCapability, Server, ToolError, elicit
from toolweave.tasks import configure_tasks

CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

server = Server("toolweave-tasks-conformance", version="0.1.0")
# Calls that end (or ask for input) within 50 ms answer plainly: `slow_compute(seconds=0)` is the
# immediate shortcut, and `test_tool_with_task` asks before it becomes a task.
configure_tasks(server, poll_interval=0.1, answer_within=0.05)
LOOKUP_SECONDS = 0.2
"""How long the tools that ask for input in their task work first (longer than `answer_within`)."""


@server.tool
def greet(name: str = "World") -> str:
    """Greets (never a task)."""
    return f"Hello, {name}!"


@server.tool(task_support="optional")
async def slow_compute(seconds: float = 1.0, label: str = "") -> str:
    """Sleeps `seconds`, then answers."""
    await anyio.sleep(seconds)
    return f"computed {label} after {seconds:g}s".replace("  ", " ")


@server.tool(task_support="required")
async def failing_job() -> str:
    """Fails as a tool (an `isError` result) after a second."""
    await anyio.sleep(1)
    raise ToolError("the job failed")


@server.tool(task_support="optional")
async def protocol_error_job() -> str:
    """Fails with a JSON-RPC error (the client lacks a capability it needs)."""
    await anyio.sleep(0.1)
    raise MissingCapability("sampling")


@server.tool(task_support="optional")
async def confirm_delete(ctx: Context, filename: str = "file.txt") -> str:
    """Looks the file up, asks the user to confirm, then deletes it."""
    await anyio.sleep(LOOKUP_SECONDS)
    answer = ctx.input_responses.get("confirm")
    if answer is None:
        raise InputRequired({"confirm": elicit(f"Delete {filename}?", CONFIRM)})
    confirmed = answer.get("action") == "accept" and bool((answer.get("content") or {}).get("confirm"))
    return f"deleted {filename}" if confirmed else f"kept {filename}"


@server.tool(task_support="optional")
async def multi_input(ctx: Context) -> str:
    """Looks something up, then asks two questions at once."""
    await anyio.sleep(LOOKUP_SECONDS)
    answers = ctx.input_responses
    if not {"first", "second"} <= answers.keys():
        raise InputRequired({"first": elicit("First name?", NAME), "second": elicit("Last name?", NAME)})
    first, second = (answers[key].get("content", {}).get("name") for key in ("first", "second"))
    return f"{first} {second}"


@server.tool(task_support="required")
async def test_tool_with_task(ctx: Context) -> str:
    """Asks for a name (before any task), then works on it as a task."""
    answer = ctx.input_responses.get("user_name")
    if answer is None:
        raise InputRequired({"user_name": elicit("Your name?", NAME)})
    await anyio.sleep(0.5)
    return f"Hello, {answer.get('content', {}).get('name')}, from a task"


def main(argv: list[str]) -> None:
    """Serve the fixture on 127.0.0.1:PORT/mcp."""
    port = int(argv[1]) if len(argv) > 1 else 3002
    server.run("http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main(sys.argv)
