"""Task records and the in-memory store: wire form, expiry, and a store that fails."""

from __future__ import annotations

import pytest
from mcp import MCPError

from tests.tasks.servers import create, task_client, tasks_server
from toolweave.tasks import MemoryTaskStore, TaskRecord, TaskSettings, TaskStore, configure_tasks


def record(**changes: object) -> TaskRecord:
    return TaskRecord.new("local", keep=60.0, poll_interval=0.5, now=1_000.0).changed(now=1_000.0, **changes)


def test_a_record_has_the_wire_shape_of_its_status() -> None:
    working = record().to_wire()
    assert working == {
        "taskId": working["taskId"],
        "status": "working",
        "createdAt": "1970-01-01T00:16:40Z",
        "lastUpdatedAt": "1970-01-01T00:16:40Z",
        "ttlMs": 60_000,
        "pollIntervalMs": 500,
    }
    done = record().finish("completed", result={"content": [], "isError": True}, now=1_030.0).to_wire()
    assert (done["result"], done["ttlMs"]) == ({"content": [], "isError": True}, 90_000)
    assert record(status="input_required", input_requests={"a": {}}).to_wire()["inputRequests"] == {"a": {}}
    assert record().finish("failed", error={"code": -32603, "message": "m"}).to_wire()["error"]["code"] == -32603


def test_a_record_round_trips_through_json_data() -> None:
    original = record(status_message="1/2")
    assert TaskRecord.from_dict(original.to_dict()) == original


async def test_ended_records_are_forgotten_once_they_expire() -> None:
    store = MemoryTaskStore()
    running = TaskRecord.new("local", keep=0.001, poll_interval=1.0, now=0.0)
    ended = TaskRecord.new("local", keep=0.001, poll_interval=1.0, now=0.0).finish("completed", now=0.0)
    await store.put(running)
    await store.put(ended)
    assert await store.get(ended.task_id) is None
    assert await store.get(running.task_id) == running  # its worker is still on it


async def test_an_ended_record_is_final_in_memory() -> None:
    store = MemoryTaskStore()
    working = TaskRecord.new("local", keep=60.0, poll_interval=1.0)
    failed = working.finish("failed", error={"code": -32603, "message": "lost"})
    written = [await store.put(working), await store.put(failed), await store.put(failed)]
    assert written == [True, True, True] and await store.put(working.changed(status_message="on")) is False
    assert await store.get(working.task_id) == failed


async def test_a_growing_store_sweeps_expired_records_on_its_own() -> None:
    store = MemoryTaskStore()
    for _ in range(200):
        await store.put(TaskRecord.new("o", keep=1.0, poll_interval=1.0, now=0.0).finish("cancelled", now=0.0))
    assert len(store) < 128
    store.sweep()
    assert len(store) == 0


def test_settings_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="keep must be a positive number of seconds"):
        TaskSettings(keep=0)
    with pytest.raises(TypeError, match="store must have async put"):
        TaskSettings(store=object())  # type: ignore[arg-type]
    assert isinstance(MemoryTaskStore(), TaskStore)


class DownStore:
    """A store whose backend is unreachable."""

    async def put(self, record: TaskRecord) -> None:
        raise ConnectionError("redis://:s3cret@cache:6379 unreachable")

    async def get(self, task_id: str) -> TaskRecord | None:
        raise ConnectionError("redis://:s3cret@cache:6379 unreachable")


async def test_a_store_outage_fails_the_call_without_leaking_details() -> None:
    server = tasks_server()
    configure_tasks(server, store=DownStore())
    async with task_client(server) as client:
        with pytest.raises(MCPError) as raised:
            await create(client, "export", {"table": "t"})
    assert raised.value.error.code == -32603 and "s3cret" not in str(raised.value.error)
