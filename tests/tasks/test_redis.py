"""Tasks kept in the server's Redis store: replicas answer for each other's tasks (real redis-server)."""

from __future__ import annotations

import json
import subprocess
import time

import anyio
import pytest
from mcp import MCPError

from tests.store.redis_server import RedisServer
from tests.tasks.servers import Gate, cancel, create, get, task_client, tasks_server, until, update
from toolweave import Server
from toolweave.store import RedisStore
from toolweave.tasks import RedisTaskStore, TaskRecord, tasks_settings
from toolweave.tasks.record import new_task_id
from toolweave.tasks.serving import UNAVAILABLE


def replica(redis: RedisServer, gate: Gate, name: str) -> Server:
    return tasks_server(gate, name=name, store=redis.url)


def redis_cli(redis: RedisServer, *args: str) -> str:
    command = [redis.binary.replace("redis-server", "redis-cli"), "-p", str(redis.port), *args]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=10).stdout.strip()


async def test_a_server_with_a_redis_store_keeps_its_tasks_there(redis: RedisServer) -> None:
    server = replica(redis, Gate(), "one")
    assert isinstance(tasks_settings(server).store, RedisTaskStore)


async def test_a_task_created_through_one_replica_is_read_through_another(redis: RedisServer) -> None:
    gate = Gate()
    first, second = replica(redis, gate, "jobs"), replica(redis, gate, "jobs")
    async with task_client(first) as one, task_client(second) as other:
        created = await create(one, "build", {"ref": "main"})
        await gate.entered.wait()
        working = await get(other, created.task_id)
        gate.release.set()
        done = await until(other, created.task_id, "completed")
    assert working.status == "working"
    assert done.result is not None and done.result["content"][0]["text"] == "built main"
    key = f"toolweave:tasks:jobs:{created.task_id}"
    stored = json.loads(redis_cli(redis, "get", key))
    assert stored["status"] == "completed" and int(redis_cli(redis, "pttl", key)) > 0


async def test_a_task_whose_server_died_is_failed_by_the_replica_that_reads_it(redis: RedisServer) -> None:
    server = replica(redis, Gate(), "survivor")
    orphan = TaskRecord.new("local", keep=60.0, poll_interval=0.5).changed(worker="gone", lease_until=time.time() - 1)
    store = RedisStore(redis.url)
    try:
        await RedisTaskStore(store, server="survivor").put(orphan)
    finally:
        await store.close()
    async with task_client(server) as client:
        state = await get(client, orphan.task_id)
    assert state.status == "failed" and state.error is not None and "stopped answering" in state.error["message"]


async def test_an_ended_record_is_final_in_redis(redis: RedisServer) -> None:
    """A write over an ended record (a slow runner's renewal after another replica failed its
    task) is refused and says so; the same end written again (a retried write) is taken."""
    store = RedisStore(redis.url)
    tasks = RedisTaskStore(store, server="jobs")
    working = TaskRecord.new("local", keep=60.0, poll_interval=0.5).changed(worker="w", lease_until=time.time() + 30)
    failed = working.finish("failed", error={"code": -32603, "message": "lost"})
    try:
        written = [await tasks.put(working), await tasks.put(failed), await tasks.put(failed)]
        refused = await tasks.put(working.changed(status_message="still going", lease_until=time.time() + 30))
        stored = await tasks.get(working.task_id)
    finally:
        await store.close()
    assert written == [True, True, True] and refused is False
    assert stored is not None and stored.status == "failed"
    assert redis_cli(redis, "exists", f"toolweave:tasks:jobs:{working.task_id}:lease") == "0"


async def test_a_redis_outage_fails_task_creation_and_polling_saying_tasks_are_unavailable(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = replica(redis, Gate(), "cut-off")
    async with task_client(server) as client:
        redis.stop()
        with pytest.raises(MCPError) as refused:
            await create(client, "export", {"table": "t"})
        with pytest.raises(MCPError) as unread:  # (a task another replica runs: only the store knows it)
            await get(client, new_task_id())
    for raised in (refused, unread):
        assert (raised.value.error.code, raised.value.error.message) == (-32603, UNAVAILABLE)
    assert "redis" not in UNAVAILABLE.lower()
    assert "incident" not in caplog.text  # an outage, not an internal error with a traceback


async def test_cancelling_through_another_replica_cancels_the_work_where_it_runs(redis: RedisServer) -> None:
    gate = Gate()
    first, second = replica(redis, gate, "jobs"), replica(redis, gate, "jobs")
    async with task_client(first) as one, task_client(second) as other:
        await anyio.sleep(0.5)  # both relays subscribed (pub/sub keeps nothing for late listeners)
        created = await create(one, "build", {"ref": "main"})
        await gate.entered.wait()
        await cancel(other, created.task_id)
        with anyio.fail_after(5):
            await gate.cleaned_up.wait()
        state = await until(other, created.task_id, "cancelled", "completed", "failed")
    assert state.status == "cancelled"


async def test_answering_through_another_replica_reaches_the_waiting_task(redis: RedisServer) -> None:
    first, second = replica(redis, Gate(), "jobs"), replica(redis, Gate(), "jobs")
    async with task_client(first) as one, task_client(second) as other:
        await anyio.sleep(0.5)
        created = await create(one, "approve", {})
        await until(other, created.task_id, "input_required")
        await update(other, created.task_id, {"who": {"action": "accept", "content": {"name": "Ada"}}})
        done = await until(other, created.task_id, "completed")
    assert done.result is not None and done.result["content"][0]["text"] == "approved by Ada (asked)"


def clock_off_by(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """This process's wall clock from now on: `seconds` off the real one (another replica's clock)."""
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + seconds)


async def put_record(redis: RedisServer, server: str, record: TaskRecord) -> None:
    store = RedisStore(redis.url)
    try:
        await RedisTaskStore(store, server=server).put(record)
    finally:
        await store.close()


async def test_a_replica_whose_clock_runs_ahead_leaves_a_live_task_working(
    redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = replica(redis, Gate(), "skewed")
    live = TaskRecord.new("local", keep=60.0, poll_interval=0.5).changed(worker="alive", lease_until=time.time() + 30)
    await put_record(redis, "skewed", live)  # written by a replica that renews its lease
    clock_off_by(monkeypatch, 90)  # this replica's clock: past the lease as the writer counted it
    async with task_client(server) as client:
        state = await get(client, live.task_id)
    assert state.status == "working"


async def test_a_replica_whose_clock_runs_behind_writes_records_that_last_their_keep(
    redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock_off_by(monkeypatch, -3600)
    ended = TaskRecord.new("local", keep=60.0, poll_interval=0.5).finish("completed")
    await put_record(redis, "behind", ended)
    key = f"toolweave:tasks:behind:{ended.task_id}"
    assert 55_000 < int(redis_cli(redis, "pttl", key)) <= 60_000
