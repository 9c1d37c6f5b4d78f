"""A server whose tools exercise tasks, and small helpers to drive tasks by hand."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import mcp
import mcp.types as mt
from mcp.client.streamable_http import streamable_http_client

from toolweave import AuthInfo, Context, InputRequired, Server, ToolError, elicit
from toolweave.tasks.client import CancelTask, CreateTaskResult, GetTask, TasksExtension, TaskState, UpdateTask
from toolweave.tasks.serving import GetTaskParams, UpdateTaskParams

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class Gate:
    """Lets a test hold a tool until it says so, and see what the tool did."""

    def __init__(self) -> None:
        self.entered = anyio.Event()
        self.release = anyio.Event()
        self.cleaned_up = anyio.Event()


def approval(ctx: Context) -> str:
    """Ask who approves (the first round), then approve with the answer and the round's state."""
    answer = ctx.input_responses.get("who")
    if answer is None:
        raise InputRequired({"who": elicit("Who approves?", NAME_FORM)}, state="asked")
    return f"approved by {answer['content']['name']} ({ctx.request_state})"


def tasks_server(gate: Gate | None = None, name: str = "jobs", **options: Any) -> Server:
    gate = gate or Gate()
    server = Server(name, **options)

    @server.tool(task_support="optional")
    async def build(ref: str, ctx: Context) -> str:
        """Build a ref (waits for the test's gate)."""
        gate.entered.set()
        try:
            await ctx.report_progress(1, 3, "compiling")
            await gate.release.wait()
            return f"built {ref}"
        finally:
            gate.cleaned_up.set()

    @server.tool(task_support="required")
    async def export(table: str) -> dict[str, Any]:
        """Export a table (only as a task)."""
        return {"table": table, "rows": 3}

    @server.tool(task_support="optional")
    def approve(ctx: Context) -> str:
        """Ask who approves, then approve."""
        return approval(ctx)

    @server.tool(task_support="optional")
    def refuse(reason: str) -> str:
        """Fail with a message for the client."""
        raise ToolError(f"refused: {reason}")

    @server.tool(task_support="optional")
    def crash() -> str:
        """Fail with an internal error."""
        raise RuntimeError("secret internals")

    @server.tool
    def quick(x: int) -> int:
        """A plain tool."""
        return x + 1

    return server


def task_client(server: Server, **options: Any) -> mcp.Client:
    """An official client, in memory, that accepts tasks (2026-07-28)."""
    return mcp.Client(server.as_mcp(), extensions=[TasksExtension()], **options)


def authenticate(headers: Any) -> AuthInfo | None:
    """Over HTTP, each bearer token is a caller of its own (the token is the subject)."""
    token = headers.get("authorization", "")
    return AuthInfo(subject=token.removeprefix("Bearer ")) if token else None


def http_client(url: str, token: str) -> Any:
    """An HTTP client (close it) and an official client through it that accepts tasks, as `token`."""
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"})
    return http, mcp.Client(streamable_http_client(f"{url}/mcp", http_client=http), extensions=[TasksExtension()])


async def create(client: mcp.Client, name: str, arguments: dict[str, Any]) -> CreateTaskResult:
    result = await client.session.call_tool(name, arguments, allow_claimed=True)
    assert isinstance(result, CreateTaskResult), result
    return result


async def get(client: mcp.Client, task_id: str) -> TaskState:
    return await client.session.send_request(GetTask(params=GetTaskParams(taskId=task_id)), TaskState)


async def update(client: mcp.Client, task_id: str, responses: dict[str, Any]) -> None:
    params = UpdateTaskParams(taskId=task_id, inputResponses=responses)
    await client.session.send_request(UpdateTask(params=params), mt.EmptyResult)


async def cancel(client: mcp.Client, task_id: str) -> None:
    await client.session.send_request(CancelTask(params=GetTaskParams(taskId=task_id)), mt.EmptyResult)


async def until(client: mcp.Client, task_id: str, *statuses: str) -> TaskState:
    """Poll until the task reaches one of `statuses` (at most 10 s)."""
    with anyio.fail_after(10):
        while True:
            state = await get(client, task_id)
            if state.status in statuses:
                return state
            await anyio.sleep(0.01)
