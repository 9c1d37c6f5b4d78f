"""SIGTERM on a server with tasks running: the drain waits for the tasks as for the requests.

A task that ends within the grace period completes (its client polls it to its result while the
server drains, and a replica reads it from the shared store after the server exited); one that
outlasts the grace period ends `failed` with the server's message; the process exits 0 within the
grace period and a little.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp
import mcp_types
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import MCPError
from mcp.shared.message import SessionMessage

from tests.conftest import free_port, subprocess_env, wait_for_port
from tests.store.redis_server import RedisServer
from tests.tasks.servers import Gate, create, get, task_client, tasks_server, until
from toolweave import Server
from toolweave.mcp.adapter import adapter_for
from toolweave.mcp.shutdown import Drain
from toolweave.store import RedisStore
from toolweave.tasks import RedisTaskStore, TaskRecord, TasksExtension

CONFIG = Path(__file__).parent / "upstreams" / "shutdown.yaml"
GRACE = 2.0
STOPPED = {"code": -32603, "message": "The server stopped before the task finished"}
SHUTTING_DOWN = -32000


@asynccontextmanager
async def draining(server: Server, grace: float) -> AsyncIterator[tuple[mcp.Client, Drain, anyio.Event]]:
    """`server` in memory with a client that takes tasks, and its `Drain`: `drain(grace)` runs in
    the background (what SIGTERM starts) once the test sets the event; the block ends after it."""
    adapter = adapter_for(server)
    start = anyio.Event()
    with Drain(adapter.tasks).installed(adapter.lowlevel) as drain:
        async with task_client(server) as client, anyio.create_task_group() as tasks:

            async def drain_when_told() -> None:
                await start.wait()
                await drain.drain(grace)

            tasks.start_soon(drain_when_told)
            yield client, drain, start


async def test_a_drain_waits_for_a_running_task_whose_client_polls_it_meanwhile() -> None:
    gate = Gate()
    async with draining(tasks_server(gate), grace=10) as (client, drain, start):
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        start.set()
        await anyio.sleep(0.05)
        working = await get(client, created.task_id)
        gate.release.set()
        done = await until(client, created.task_id, "completed", "failed")
    assert (drain.closing, working.status) == (True, "working")
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "built main"
    assert drain.stopped == 0


async def test_a_task_that_outlasts_the_grace_period_ends_failed_and_its_finally_runs() -> None:
    gate = Gate()
    async with draining(tasks_server(gate), grace=0.2) as (client, drain, start):
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        start.set()
        failed = await until(client, created.task_id, "completed", "failed", "cancelled")
    assert (failed.status, failed.error) == ("failed", STOPPED)
    assert gate.cleaned_up.is_set() and drain.stopped == 1


async def test_while_draining_a_new_call_is_refused() -> None:
    gate = Gate()
    async with draining(tasks_server(gate), grace=10) as (client, _, start):
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        start.set()
        await anyio.sleep(0.05)
        with pytest.raises(MCPError) as refused:
            await create(client, "build", {"ref": "late"})
        gate.release.set()
        await until(client, created.task_id, "completed")
    assert refused.value.error.code == SHUTTING_DOWN


@asynccontextmanager
async def pipes(process: Process) -> AsyncIterator[Any]:
    """An `mcp.Client` transport over a stdio server's pipes (unlike `StdioServerParameters`, the
    test keeps the process, so it can signal it and read its exit status)."""
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, BufferedByteReceiveStream(process.stdout)
    to_client, read = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write, from_client = anyio.create_memory_object_stream[SessionMessage](16)

    async def reader() -> None:
        async with to_client:
            while True:
                try:
                    line = await stdout.receive_until(b"\n", 1 << 24)
                except (anyio.EndOfStream, anyio.IncompleteRead):
                    return
                await to_client.send(SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line)))

    async def writer() -> None:
        async with from_client:
            async for sent in from_client:
                await stdin.send(sent.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")

    async with read, write, anyio.create_task_group() as tasks:
        tasks.start_soon(reader)
        tasks.start_soon(writer)
        yield read, write
        tasks.cancel_scope.cancel()


@asynccontextmanager
async def served(transport: str, redis: RedisServer) -> AsyncIterator[tuple[mcp.Client, Process]]:
    """`toolweave serve shutdown.yaml --grace 2` over `transport`, and a client that takes tasks."""
    command = [sys.executable, "-m", "toolweave.cli", "serve", str(CONFIG), "--grace", str(GRACE)]
    port = free_port()
    if transport == "http":
        command += ["--transport", "http", "--port", str(port)]
    process = await anyio.open_process(
        command, env=subprocess_env(REDIS_URL=redis.url), stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        if transport == "http":
            await anyio.to_thread.run_sync(wait_for_port, port)
            client = mcp.Client(f"http://127.0.0.1:{port}/mcp", extensions=[TasksExtension()])
            async with client:
                yield client, process
        else:
            async with mcp.Client(pipes(process), extensions=[TasksExtension()]) as client:
                yield client, process
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        await process.aclose()


async def stored(redis: RedisServer, task_id: str) -> TaskRecord | None:
    """The task's record as another replica reads it from the shared store."""
    store = RedisStore(redis.url)
    try:
        return await RedisTaskStore(store, server="jobs").get(task_id)
    finally:
        await store.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_sigterm_lets_running_tasks_finish_within_the_grace_period_and_fails_the_rest(
    transport: str, redis: RedisServer
) -> None:
    async with served(transport, redis) as (client, process):
        short = await create(client, "deploy", {"env": "staging", "seconds": 1.0})
        long = await create(client, "deploy", {"env": "production", "seconds": 60})
        await anyio.sleep(0.2)
        os.kill(process.pid, signal.SIGTERM)
        signalled = time.monotonic()
        done = await until(client, short.task_id, "completed", "failed", "cancelled")  # while the server drains
        with pytest.raises(MCPError) as refused:
            await client.session.call_tool("deploy", {"env": "late"}, allow_claimed=True)
        with anyio.fail_after(GRACE + 10):
            status = await process.wait()
        took = time.monotonic() - signalled
    assert done.status == "completed" and done.result is not None
    assert done.result["content"][0]["text"] == "deployed to staging"
    assert refused.value.error.code == SHUTTING_DOWN
    assert status == 0 and GRACE - 0.3 < took < GRACE + 3  # + the interpreter's own teardown (~1 s under load)
    completed, failed = await stored(redis, short.task_id), await stored(redis, long.task_id)
    assert completed is not None and completed.status == "completed"
    assert failed is not None and (failed.status, failed.error) == ("failed", STOPPED)
