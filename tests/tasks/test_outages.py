"""A task outlives short outages: its client polls on through them, a Redis that comes back empty
gets the running tasks' records back, and the logs say so once (real redis-server, HTTP, the
official client; a stdio upstream for the gateway).

Two replicas share one Redis behind a "balancer" that sends a task's polls to the replica that
does not run it, so every poll is answered from the store.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp
import mcp.types as mt
import pytest
from mcp import MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import MCP_METHOD_HEADER

from tests.conftest import free_port, subprocess_env
from tests.serving import serving
from tests.store.redis_server import RedisServer
from tests.tasks.servers import Gate, create, get, task_client, tasks_server, until
from toolweave import Context, Server
from toolweave.core.errors import ToolTimeout, UpstreamError
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.store import RedisStore, StoreUnavailable
from toolweave.tasks import TasksExtension, configure_tasks
from toolweave.tasks.client import CreateTaskResult, drive_task
from toolweave.tasks.record import new_task_id
from toolweave.tasks.runner import RESTORING
from toolweave.tasks.serving import NOT_FOUND, UNAVAILABLE
from toolweave.tasks.settings import TaskSettings
from toolweave.tasks.upkeep import Upkeep

UPSTREAM = Path(__file__).parent / "upstreams" / "task_upstream.py"


def replica(redis: RedisServer, gate: Gate, **tasks: Any) -> Server:
    """One replica of the server "jobs", its tasks in `redis` (an outage noticed within half a second)."""
    server = tasks_server(gate, store=RedisStore(redis.url, timeout=0.5, retry_after=0.2))
    configure_tasks(server, poll_interval=0.05, **tasks)
    return server


class Balancer(httpx2.AsyncBaseTransport):
    """Sends each HTTP request to the port `pick(request)` chooses (no affinity of any kind)."""

    def __init__(self, pick: Callable[[httpx2.Request], int]) -> None:
        self._pick = pick
        self._http = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = self._pick(request)
        request.url = request.url.copy_with(port=port)
        request.headers["host"] = f"127.0.0.1:{port}"
        return await self._http.handle_async_request(request)

    async def aclose(self) -> None:
        await self._http.aclose()


@asynccontextmanager
async def polled_elsewhere(runs: Server, answers: Server, **client: Any) -> AsyncIterator[mcp.Client]:
    """A client whose tool calls reach `runs` and whose task requests (`tasks/*`) reach `answers`."""
    async with AsyncExitStack() as stack:
        urls = [await stack.enter_async_context(serving(server.http_app())) for server in (runs, answers)]
        ports = [int(url.rsplit(":", 1)[1]) for url in urls]
        balancer = Balancer(lambda request: ports[request.headers.get(MCP_METHOD_HEADER, "").startswith("tasks/")])
        http = await stack.enter_async_context(httpx2.AsyncClient(transport=balancer))
        transport = streamable_http_client(f"{urls[0]}/mcp", http_client=http)
        yield await stack.enter_async_context(mcp.Client(transport, extensions=[TasksExtension(**client)]))


async def call_in_background(client: mcp.Client, tasks: Any, outcome: list[Any]) -> None:
    async def call() -> None:
        try:
            outcome.append(await client.call_tool("build", {"ref": "main"}))
        except MCPError as error:
            outcome.append(error)

    tasks.start_soon(call)


# -- the client polls on -----------------------------------------------------------------------


async def test_a_client_polls_on_through_a_redis_restart_and_gets_the_tasks_result(redis: RedisServer) -> None:
    """Every poll fails for a second ("try again shortly"), then Redis is back, empty: the call
    still ends with the tool's result (the client cancelled the task at the first failed poll)."""
    gate, outcome = Gate(), list[Any]()
    async with polled_elsewhere(replica(redis, gate), replica(redis, gate)) as client:
        await anyio.sleep(0.3)  # both servers serving (and their relays listening)
        async with anyio.create_task_group() as tasks:
            await call_in_background(client, tasks, outcome)
            await gate.entered.wait()
            await anyio.sleep(0.2)  # its progress saved: nothing more to write until its renewal
            redis.stop()
            await anyio.sleep(1.0)  # polls fail meanwhile
            redis.start()
            await anyio.sleep(0.5)
            gate.release.set()
    assert len(outcome) == 1 and not isinstance(outcome[0], MCPError), outcome
    assert outcome[0].content[0].text == "built main"


async def test_a_client_gives_the_task_up_once_no_poll_was_answered_for_its_patience(redis: RedisServer) -> None:
    gate, outcome = Gate(), list[Any]()
    async with (
        polled_elsewhere(replica(redis, gate), replica(redis, gate), patience=1.0) as client,
        anyio.create_task_group() as tasks,
    ):
        await call_in_background(client, tasks, outcome)
        await gate.entered.wait()
        redis.stop()
        started = anyio.current_time()
        with anyio.fail_after(10):
            while not outcome:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        took = anyio.current_time() - started
        redis.start()  # (so that the task's end is saved at once)
        gate.release.set()
    lost = outcome[0]
    assert isinstance(lost, MCPError) and lost.error.code == mt.INTERNAL_ERROR
    assert lost.error.message == (
        f"lost contact with the server while its task ran: no poll answered for 1s (the last: {UNAVAILABLE})"
    )
    assert 1.0 <= took < 5


@pytest.mark.parametrize(
    ("error", "last"),
    [
        (ToolTimeout("deploy", 3), "no answer within 3s"),
        (UpstreamError("upstream 'up' is not connected; tool 'deploy' is unavailable", tool="deploy"), None),
    ],
    ids=["a timed-out poll", "an upstream not connected"],
)
async def test_a_gateway_giving_up_an_upstream_task_says_contact_was_lost_not_that_the_tool_timed_out(
    error: Exception, last: str | None
) -> None:
    """What `drive_task` raises when the gateway's own requests fail (its `send`) past its patience."""

    async def send(request: Any, result_type: Any) -> Any:
        if isinstance(request.params, mt.RequestParams) and request.method == "tasks/get":
            raise error
        return mt.EmptyResult()

    created = CreateTaskResult(task_id="t", status="working", poll_interval_ms=10)
    with pytest.raises(UpstreamError) as raised:
        await drive_task(None, created, send=send, patience=0.1, server="upstream 'up'")  # type: ignore[arg-type]
    message = str(raised.value)
    assert message.startswith("lost contact with upstream 'up' while its task ran: no poll answered for 0s (the last: ")
    assert message.endswith(f"{last or error})") and "timed out" not in message
    assert raised.value.code is None  # (a gateway's task then ends `failed`, as for an upstream gone)


async def test_a_poll_that_hangs_is_given_up_at_the_patience_bound() -> None:
    """A server that stops answering (no error, no answer: a stopped process, a half-open
    connection) is given up like one whose polls fail, and the task is cancelled."""
    cancelled: list[str] = []

    async def send(request: Any, result_type: Any) -> Any:
        if request.method == "tasks/get":
            await anyio.sleep_forever()
        cancelled.append(request.params.task_id)
        return mt.EmptyResult()

    created = CreateTaskResult(task_id="t", status="working", poll_interval_ms=10)
    with anyio.fail_after(5), pytest.raises(UpstreamError) as raised:
        await drive_task(None, created, send=send, patience=0.3, server="upstream 'up'")  # type: ignore[arg-type]
    assert str(raised.value) == (
        "lost contact with upstream 'up' while its task ran: no poll answered for 0s (the last: no answer within 0.3s)"
    )
    assert cancelled == ["t"]


async def test_a_gateway_polls_its_upstreams_task_on_through_a_stall_longer_than_the_remote_timeout() -> None:
    """The upstream stops answering for 1.5 s (each poll is bounded by 0.5 s) while its 2.5 s task
    runs: the gateway's task ends with the tool's result (it ended with "timed out after 0.5s")."""
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAM), "modern"], env=subprocess_env(), timeout=0.5)
    server = Server("gateway")
    server.mount(remote, prefix="up")
    async with task_client(server) as client:
        pid = int((await client.call_tool("up_pid", {})).content[0].text)  # type: ignore[union-attr]
        created = await create(client, "up_build", {"seconds": 2.5})
        with anyio.fail_after(5):  # its upstream task runs (its progress polled through)
            while "compiling" not in ((await get(client, created.task_id)).status_message or ""):  # noqa: ASYNC110
                await anyio.sleep(0.05)
        os.kill(pid, signal.SIGSTOP)
        try:
            await anyio.sleep(1.5)
        finally:
            os.kill(pid, signal.SIGCONT)
        done = await until(client, created.task_id, "completed", "failed", "cancelled")
    assert done.status == "completed" and done.result is not None and not done.result.get("isError")
    assert done.result["content"][0]["text"] == "built"


async def test_a_gateway_task_whose_upstream_died_names_the_upstream_and_not_its_task_id() -> None:
    server = Server("gateway")
    server.mount(RemoteServer.stdio(sys.executable, [str(UPSTREAM), "modern"], env=subprocess_env()), prefix="up")
    async with task_client(server) as client:
        pid = int((await client.call_tool("up_pid", {})).content[0].text)  # type: ignore[union-attr]
        created = await create(client, "up_build", {"seconds": 30})
        with anyio.fail_after(5):  # its upstream task runs
            while "compiling" not in ((await get(client, created.task_id)).status_message or ""):  # noqa: ASYNC110
                await anyio.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        done = await until(client, created.task_id, "completed", "failed")
    assert done.error is not None and "upstream 'up'" in done.error["message"]
    assert not re.search(r"[\w-]{40,}", done.error["message"])  # (a task id is 43 such characters)


class CutStreams:
    """An ASGI app whose `cut()` ends every legacy SSE stream open to it as a proxy dropping the
    connection would: the server reads its client gone, the client reads the end of the stream,
    and the server goes on (its tasks too)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._cut = anyio.Event()

    def cut(self) -> None:
        self._cut.set()
        self._cut = anyio.Event()  # (for the streams opened afterwards)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/sse":
            await self.app(scope, receive, send)
            return
        cut, ended = self._cut, False

        async def disconnected() -> dict[str, Any]:  # (a GET stream reads only to hear the client leave)
            await cut.wait()
            return {"type": "http.disconnect"}

        async def sending(message: dict[str, Any]) -> None:
            nonlocal ended
            ended = ended or (message["type"] == "http.response.body" and not message.get("more_body"))
            if not cut.is_set():
                await send(message)

        await self.app(scope, disconnected, sending)
        if not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


async def test_a_gateway_task_polls_on_after_its_sse_upstreams_stream_is_cut_and_gets_the_result() -> None:
    """The upstream keeps the task for its caller, not for a connection: it is polled on over the
    next session. It failed at once ("lost contact with upstream 'up' … went away") while the
    upstream ran the task to its end, and the cancel sent over the lost session never reached it."""
    upstream = Server("up")

    @upstream.tool(task_support="optional")
    async def deploy(env: str, ctx: Context) -> str:
        await ctx.report_progress(1, 2, "deploying")
        await anyio.sleep(1.5)
        return f"deployed to {env}"

    app = CutStreams(upstream.http_app(legacy_sse=True))
    async with serving(app, lifespan="on") as url:
        gateway = Server("gateway")
        # it connects again after a second: a poll (every 0.5 s) finds it not connected meanwhile
        gateway.mount(RemoteServer.sse(f"{url}/sse", backoff=Backoff(initial=1.0, maximum=1.0)), prefix="up")
        async with task_client(gateway) as client:
            created = await create(client, "up_deploy", {"env": "prod"})
            with anyio.fail_after(5):  # the gateway polls its upstream's task (its progress came through)
                while "deploying" not in ((await get(client, created.task_id)).status_message or ""):  # noqa: ASYNC110
                    await anyio.sleep(0.05)
            app.cut()
            done = await until(client, created.task_id, "completed", "failed")
    assert done.status == "completed", done.error
    assert done.result is not None and done.result["content"][0]["text"] == "deployed to prod"


def deploying() -> Server:
    """An upstream whose `deploy` runs 30 s as a task (its tasks kept in its memory)."""
    upstream = Server("up")

    @upstream.tool(task_support="optional")
    async def deploy(env: str) -> str:
        await anyio.sleep(30)
        return f"deployed to {env}"

    return upstream


async def serve_until(
    port: int, stop: anyio.Event, stopped: anyio.Event, *, task_status: Any = anyio.TASK_STATUS_IGNORED
) -> None:
    """A fresh `deploying()` upstream on `port` until `stop` is set; `stopped` once its port is free."""
    async with serving(deploying().http_app(), port=port, lifespan="on"):
        task_status.started()
        await stop.wait()
    stopped.set()


async def test_a_gateway_task_whose_http_upstream_restarted_without_it_fails_saying_it_was_lost() -> None:
    """The restarted upstream answers the poll "Task not found": the gateway's task ends `failed`
    as for an upstream gone. It ended `completed`, with an `isError` result saying the upstream
    "refused the call"."""
    port, first, second, first_stopped = free_port(), anyio.Event(), anyio.Event(), anyio.Event()
    gateway = Server("gateway")
    remote = RemoteServer.http(f"http://127.0.0.1:{port}/mcp", backoff=Backoff(initial=0.1, maximum=0.2))
    gateway.mount(remote, prefix="up")
    async with anyio.create_task_group() as upstreams:
        await upstreams.start(serve_until, port, first, first_stopped)
        async with task_client(gateway) as client:
            created = await create(client, "up_deploy", {"env": "prod"})
            await anyio.sleep(0.3)  # the gateway polls its upstream's task
            first.set()  # the upstream stops, and starts again without its tasks
            await first_stopped.wait()
            await upstreams.start(serve_until, port, second, anyio.Event())
            done = await until(client, created.task_id, "completed", "failed")
        second.set()
    assert done.status == "failed", done.result
    assert done.error is not None and done.error["message"].startswith(
        "lost contact with upstream 'up' while its task ran: it no longer knows the task"
    )


# -- a Redis that comes back empty -------------------------------------------------------------


async def answers_for(client: mcp.Client, task_id: str, seconds: float) -> list[str]:
    """What `tasks/get` answers, polled every 50 ms for `seconds` or until the task is working."""
    answers: list[str] = []
    with anyio.move_on_after(seconds):
        while not answers or answers[-1] != "working":
            try:
                answers.append((await get(client, task_id)).status)
            except MCPError as error:
                answers.append(error.error.message)
            await anyio.sleep(0.05)
    return answers


async def test_after_redis_restarts_empty_another_replica_never_calls_a_running_task_not_found(
    redis: RedisServer,
) -> None:
    """It answers "try again shortly" until the replica running the task has written it again,
    which it does at once when asked (well before its next renewal, 10 s away with the default
    30 s lease); it answered "Task not found" until then."""
    gate = Gate()
    runs, answers = replica(redis, gate), replica(redis, gate)
    async with task_client(runs) as owner, task_client(answers) as other:
        await anyio.sleep(0.3)  # both servers serving (and their relays listening)
        created = await create(owner, "build", {"ref": "main"})
        await gate.entered.wait()
        await anyio.sleep(0.2)  # its progress saved: nothing more to write until its renewal
        redis.stop()
        redis.start()
        seen = await answers_for(other, created.task_id, 5)
        gate.release.set()
        done = await until(other, created.task_id, "completed")
    assert NOT_FOUND not in seen and seen[-1] == "working", seen
    assert set(seen) <= {"working", RESTORING}
    assert done.result is not None and done.result["content"][0]["text"] == "built main"


async def test_a_task_not_found_after_redis_restarts_empty_is_so_once_a_lease_has_passed(
    redis: RedisServer,
) -> None:
    server, nobody_runs = replica(redis, Gate(), lease=0.6), new_task_id()
    async with task_client(server) as client:
        await anyio.sleep(0.3)
        redis.stop()
        redis.start()
        with pytest.raises(MCPError) as meanwhile:
            await get(client, nobody_runs)
        await anyio.sleep(0.7)
        with pytest.raises(MCPError) as after:
            await get(client, nobody_runs)
    assert (meanwhile.value.error.code, meanwhile.value.error.message) == (mt.INTERNAL_ERROR, RESTORING)
    assert (after.value.error.code, after.value.error.message) == (mt.INVALID_PARAMS, NOT_FOUND)


# -- what the logs say -------------------------------------------------------------------------


async def test_a_redis_outage_is_one_log_line_without_a_traceback_however_many_saves_fail(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = Server("ticks", store=RedisStore(redis.url, timeout=0.5, retry_after=0.1))
    configure_tasks(server, lease=0.6)
    stop = anyio.Event()

    @server.tool(task_support="required")
    async def tick(ctx: Context) -> str:
        count = 0
        while not stop.is_set():
            count += 1
            await ctx.report_progress(count, None, "tick")
            await anyio.sleep(0.02)
        return f"{count} ticks"

    caplog.set_level(logging.INFO, logger="toolweave.tasks")
    async with task_client(server) as client:
        created = await create(client, "tick", {})
        redis.stop()
        await anyio.sleep(0.6)  # some 25 progress saves, and two lease renewals, fail
        redis.start()
        await anyio.sleep(1.2)  # the next renewal saves
        stop.set()
        done = await until(client, created.task_id, "completed")
    lines = [record for record in caplog.records if record.name == "toolweave.tasks"]
    unsaved = [record.getMessage() for record in lines if record.getMessage().startswith("could not save")]
    assert len(unsaved) == 1 and unsaved[0].startswith("could not save task records ("), unsaved
    assert [record.getMessage() for record in lines].count("task records are saved again") == 1
    assert not [record for record in lines if record.exc_info]
    assert done.result is not None and done.result["content"][0]["text"].endswith("ticks")


def test_a_save_failing_for_another_reason_than_an_outage_is_logged_with_its_traceback_each_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    upkeep = Upkeep(TaskSettings())
    with caplog.at_level(logging.WARNING, logger="toolweave.tasks"):
        for _ in range(2):  # (a store's bug, a record it cannot take: never hidden as an outage)
            try:
                raise TypeError("Object of type Decimal is not JSON serializable")
            except TypeError as error:
                upkeep.failed(error)
        for _ in range(3):
            upkeep.failed(StoreUnavailable("Redis at 127.0.0.1:1 is unreachable"))
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in errors] == ["could not save a task record"] * 2
    assert all(r.exc_info is not None and r.exc_info[0] is TypeError for r in errors)
    assert len(warnings) == 1 and "StoreUnavailable: Redis at 127.0.0.1:1 is unreachable" in warnings[0].getMessage()
