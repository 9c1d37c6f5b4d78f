"""Replicas sharing one task store: a task created through one server is read through another."""

from __future__ import annotations

import time

import anyio

from tests.tasks.servers import Gate, create, get, task_client, tasks_server, until
from toolweave import Server
from toolweave.tasks import MemoryTaskStore, TaskRecord, configure_tasks


class Cut:
    """A replica's way to a shared store, which a test can cut (as a network would) and restore."""

    def __init__(self, store: MemoryTaskStore) -> None:
        self.store = store
        self.cut = False

    async def put(self, record: TaskRecord) -> bool | None:
        if self.cut:
            raise ConnectionError("the store is out of reach")
        return await self.store.put(record)

    async def get(self, task_id: str) -> TaskRecord | None:
        if self.cut:
            raise ConnectionError("the store is out of reach")
        return await self.store.get(task_id)


def replicas(store: MemoryTaskStore, gate: Gate, **options: float) -> tuple[Server, Server]:
    first, second = tasks_server(gate, name="replica-1"), tasks_server(gate, name="replica-2")
    for server in (first, second):
        configure_tasks(server, store=store, **options)
    return first, second


async def test_a_task_created_through_one_replica_is_read_through_another() -> None:
    gate, store = Gate(), MemoryTaskStore()
    first, second = replicas(store, gate)
    async with task_client(first) as one, task_client(second) as other:
        created = await create(one, "build", {"ref": "main"})
        await gate.entered.wait()
        working = await get(other, created.task_id)
        gate.release.set()
        await until(one, created.task_id, "completed")
        done = await get(other, created.task_id)
    assert working.status == "working"
    assert done.status == "completed" and done.result is not None and done.result["content"][0]["text"] == "built main"


async def test_a_running_task_keeps_its_lease_renewed() -> None:
    gate, store = Gate(), MemoryTaskStore()
    first, second = replicas(store, gate, lease=0.6)  # (renewed every 0.2 s: a loaded machine stalls less)
    async with task_client(first) as one, task_client(second) as other:
        created = await create(one, "build", {"ref": "main"})
        await gate.entered.wait()
        await anyio.sleep(2)  # three leases: renewed by the first replica all along
        state = await get(other, created.task_id)
        gate.release.set()
    assert state.status == "working"


async def test_a_task_whose_worker_died_is_failed_once_its_lease_lapsed() -> None:
    store = MemoryTaskStore()
    server = tasks_server()
    configure_tasks(server, store=store)
    orphan = TaskRecord.new("local", keep=60.0, poll_interval=0.5)
    await store.put(orphan.changed(worker="gone", lease_until=time.time() - 1))
    async with task_client(server) as client:
        state = await get(client, orphan.task_id)
    assert state.status == "failed" and state.error == {
        "code": -32603,
        "message": "The server running the task stopped answering",
    }
    stored = await store.get(orphan.task_id)
    assert stored is not None and stored.status == "failed"


async def test_a_task_failed_for_a_lapsed_lease_stays_failed_and_its_work_is_cancelled() -> None:
    """Its runner was cut off from the store longer than a lease, then came back: its renewals
    and its result used to overwrite the end another replica wrote (failed, working, completed)."""
    gate, store = Gate(), MemoryTaskStore()
    first, second = tasks_server(gate, name="replica-1"), tasks_server(gate, name="replica-2")
    way = Cut(store)
    configure_tasks(first, store=way, lease=0.3)  # type: ignore[arg-type]
    configure_tasks(second, store=store, lease=0.3)
    async with task_client(first) as one, task_client(second) as other:
        created = await create(one, "build", {"ref": "main"})
        await gate.entered.wait()
        way.cut = True
        await anyio.sleep(0.5)  # the lease lapses unrenewed
        ended = await get(other, created.task_id)
        way.cut = False
        with anyio.fail_after(5):
            await gate.cleaned_up.wait()  # the runner's next renewal is refused: its work is cancelled
        gate.release.set()
        await anyio.sleep(0.2)
        seen = [(await get(other, created.task_id)).status for _ in range(3)]
    assert ended.status == "failed" and seen == ["failed"] * 3
