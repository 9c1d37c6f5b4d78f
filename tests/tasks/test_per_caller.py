"""How many task records one caller may hold (`max_per_caller`), in memory and in a real Redis.

A task-augmented call stores its record before any middleware runs, so without a bound a client
flooding calls (even calls a `RateLimit` turns away at once) grew the store for `keep` (an hour).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as mt
import pytest
from mcp import MCPError

from tests.serving import serving
from tests.store.redis_server import RedisServer
from tests.tasks.servers import Gate, authenticate, create, get, http_client, task_client, tasks_server, until
from toolweave import Server
from toolweave.middleware import RateLimit
from toolweave.tasks import MemoryTaskStore, RedisTaskStore, TaskSettings, configure_tasks, tasks_settings
from toolweave.tasks.client import CreateTaskResult
from toolweave.tasks.record import is_task_id
from toolweave.tasks.serving import NOT_FOUND

TOO_MANY = "Too many tasks are running for this caller"


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The `Server` options keeping tasks in this process's memory, or in a real Redis."""
    if request.param == "memory":
        return {}
    redis: RedisServer = request.getfixturevalue("redis")
    return {"store": redis.url}


async def records(server: Server) -> int:
    """How many task records the server's store holds now."""
    kept = tasks_settings(server).store
    if isinstance(kept, MemoryTaskStore):
        return len(kept)
    assert isinstance(kept, RedisTaskStore)
    keys = await kept.store.run(lambda client: client.keys(kept.key("*")))
    return sum(is_task_id(key.decode().rsplit(":", 1)[-1]) for key in keys)


async def stored_ended(server: Server, *task_ids: str) -> None:
    """Wait until the store holds these tasks ended (`tasks/get` may report the end of a task
    running here a moment before its record is written)."""
    store = tasks_settings(server).store
    with anyio.fail_after(10):
        for task_id in task_ids:
            while not ((record := await store.get(task_id)) and record.terminal):  # noqa: ASYNC110
                await anyio.sleep(0.01)


async def test_a_flood_of_calls_the_rate_limit_turns_away_keeps_at_most_the_callers_bound(
    store: dict[str, Any],
) -> None:
    server = tasks_server(name="flood", middleware=[RateLimit(0.001, burst=1)], **store)
    configure_tasks(server, max_per_caller=10)
    async with task_client(server) as client:
        answers = [await client.session.call_tool("export", {"table": "t"}, allow_claimed=True) for _ in range(100)]
        created = [answer.task_id for answer in answers if isinstance(answer, CreateTaskResult)]
        newest = await until(client, created[-1], "completed")
        kept = await records(server)
    assert kept <= 10 and len(created) > 10  # (a call finding all 10 still running is refused)
    assert newest.status == "completed" and newest.result is not None and newest.result["isError"] is True


async def test_the_callers_tasks_that_ended_first_are_dropped_and_running_ones_kept(store: dict[str, Any]) -> None:
    gate = Gate()
    server = tasks_server(gate, name="drops", **store)
    configure_tasks(server, max_per_caller=3)
    async with task_client(server) as client:
        running = await create(client, "build", {"ref": "main"})  # the oldest: still running
        first = await create(client, "export", {"table": "a"})
        await stored_ended(server, first.task_id)  # (before the second starts: the first ends first)
        second = await create(client, "export", {"table": "b"})
        await stored_ended(server, second.task_id)
        newest = await create(client, "export", {"table": "c"})
        with pytest.raises(MCPError) as dropped:
            await get(client, first.task_id)
        kept = [(await get(client, task.task_id)).status for task in (running, second)]
        gate.release.set()
        done = [(await until(client, task.task_id, "completed")).status for task in (running, newest)]
    assert (dropped.value.error.code, dropped.value.error.message) == (-32602, NOT_FOUND)
    assert kept == ["working", "completed"] and done == ["completed", "completed"]


async def test_a_caller_whose_tasks_all_run_is_refused_while_another_caller_is_served(store: dict[str, Any]) -> None:
    gate = Gate()
    server = tasks_server(gate, name="busy", **store)
    configure_tasks(server, max_per_caller=2)
    async with serving(server.http_app(authenticate=authenticate)) as url:
        alice_http, alice = http_client(url, "alice")
        bob_http, bob = http_client(url, "bob")
        async with alice_http, bob_http, alice, bob:
            held = [await create(alice, "build", {"ref": ref}) for ref in ("a", "b")]
            refused = await alice.session.call_tool("build", {"ref": "c"}, allow_claimed=True)
            served = await create(bob, "build", {"ref": "d"})
            gate.release.set()
            await stored_ended(server, *(task.task_id for task in held))
            await until(bob, served.task_id, "completed")
            again = await create(alice, "export", {"table": "t"})  # its tasks ended: room again
    assert isinstance(refused, mt.CallToolResult) and refused.is_error
    assert isinstance(refused.content[0], mt.TextContent) and refused.content[0].text.startswith(TOO_MANY)
    assert "(the most it may hold is 2)" in refused.content[0].text and again.status == "working"


async def test_a_call_refused_after_answer_within_has_its_work_cancelled() -> None:
    """With `answer_within`, the work starts before the task is created: a refusal cancels it."""
    first, second = Gate(), Gate()
    server = tasks_server(first, name="late")
    configure_tasks(server, max_per_caller=1, answer_within=0.01)

    @server.tool(task_support="optional")
    async def slow() -> str:
        try:
            await anyio.sleep_forever()
        finally:
            second.cleaned_up.set()
        return "never"

    async with task_client(server) as client:
        running = await create(client, "build", {"ref": "main"})
        refused = await client.session.call_tool("slow", {}, allow_claimed=True)
        with anyio.fail_after(10):
            await second.cleaned_up.wait()
        first.release.set()
        await until(client, running.task_id, "completed")
    assert isinstance(refused, mt.CallToolResult) and refused.is_error
    assert await records(server) == 1


def test_settings_refuse_a_bound_that_is_not_a_whole_number_of_records() -> None:
    for nonsense in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_per_caller must be a whole number"):
            TaskSettings(max_per_caller=nonsense)  # type: ignore[arg-type]
