"""Where task records live: the `TaskStore` protocol and the in-memory default.

A store keeps `TaskRecord`s by id and forgets them once they expire (`record.expires_at`, for a
record that has ended), and keeps an ended record over any later write (an ended task is final).
Two methods are the whole contract, so a store shared by several replicas (Redis: one JSON
document per task, written by one script that checks and sets) can implement it: then
`tasks/get` reaching any replica answers from the record. A store that also offers
`create(record, limit)` bounds how many records each caller holds (see `MemoryTaskStore.create`).

Example:
    >>> import anyio
    >>> from toolweave.tasks.record import TaskRecord
    >>> store = MemoryTaskStore()
    >>> record = TaskRecord.new("local", keep=60.0, poll_interval=1.0)
    >>> anyio.run(store.put, record)
    True
    >>> anyio.run(store.get, record.task_id) == record
    True
    >>> anyio.run(store.put, record.finish("cancelled")), anyio.run(store.put, record)
    (True, False)
    >>> anyio.run(store.create, TaskRecord.new("local", keep=60.0, poll_interval=1.0), 1)  # (drops the ended one)
    True
    >>> anyio.run(store.get, record.task_id) is None
    True
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from toolweave.tasks.record import TaskRecord


@runtime_checkable
class TaskStore(Protocol):
    """Keeps task records by id. A store need not be in this process; each call may fail
    (an outage, best as `toolweave.store.StoreUnavailable`): the server then answers the
    client's request with an internal error.

    A store may also offer `create(record, limit)` (store a new task's record unless its owner
    holds `limit` records, all running; see `MemoryTaskStore.create`): without it, the records a
    caller holds are not bounded. A store shared by replicas may also offer `relay()` (a `Fanout`
    the replicas pass requests for each other's tasks on), `open()` (awaited once when a server
    starts serving) and `emptied_at()` (when, on the `time.monotonic()` clock, it last found it
    had lost its records); `RedisTaskStore` offers all four (see `toolweave.tasks.runner` for what
    they are used for).
    """

    async def put(self, record: TaskRecord) -> bool | None:
        """Create or replace the record of `record.task_id`; once this returns, `get` finds it.
        An ended record is final: when the stored one has ended (another replica ended a task
        whose lease lapsed), it is kept and `put` returns `False` (a store that returns `None`
        is taken to have written)."""
        ...

    async def get(self, task_id: str) -> TaskRecord | None:
        """The record of `task_id`, or `None` when there is none (never was, or expired)."""
        ...


class MemoryTaskStore:
    """Task records in this process's memory (the default store).

    Ended records are dropped once they expire; a sweep runs when the store has doubled since
    the last one, so memory stays bounded by the tasks of one `keep` period, and by `limit` per
    caller for tasks made with `create`.
    """

    def __init__(self) -> None:
        self._records: dict[str, TaskRecord] = {}
        self._held: dict[str, _Held] = {}  # by owner
        self._swept_at_size = 64

    def __len__(self) -> int:
        return len(self._records)

    async def put(self, record: TaskRecord) -> bool:
        stored = self._records.get(record.task_id)
        if stored is not None and stored.terminal and stored != record:
            return False  # an ended task is final
        self._records[record.task_id] = record
        held = self._held.get(record.owner)
        if held is None:
            held = self._held[record.owner] = _Held()
        if record.terminal:
            held.running.pop(record.task_id, None)
            held.ended[record.task_id] = None
        else:
            held.running[record.task_id] = None
        if len(self._records) >= 2 * self._swept_at_size:
            self.sweep()
        return True

    async def create(self, record: TaskRecord, limit: int) -> bool:
        """Store a new task's record, unless its owner holds `limit` records already, all of them
        running: whether it was stored. To make room, the owner's records that ended first are
        dropped (a result nobody read by then is lost)."""
        held = self._held.get(record.owner)
        if held is not None and len(held.running) + len(held.ended) >= limit:
            if len(held.running) >= limit:
                return False
            while len(held.running) + len(held.ended) >= limit:
                self._drop(next(iter(held.ended)))
        return await self.put(record) is not False  # (a subclass's `put` may return None)

    async def get(self, task_id: str) -> TaskRecord | None:
        record = self._records.get(task_id)
        if record is not None and _expired(record, time.time()):
            self._drop(task_id)
            return None
        return record

    def sweep(self, now: float | None = None) -> None:
        """Drop every ended record that has expired."""
        now = time.time() if now is None else now
        for task_id in [key for key, record in self._records.items() if _expired(record, now)]:
            self._drop(task_id)
        self._swept_at_size = max(64, len(self._records))

    def _drop(self, task_id: str) -> None:
        owner = self._records.pop(task_id).owner
        held = self._held[owner]
        held.running.pop(task_id, None)
        held.ended.pop(task_id, None)
        if not held.running and not held.ended:
            del self._held[owner]


@dataclass(slots=True)
class _Held:
    """One owner's task ids, oldest first: running, and ended (in the order they ended)."""

    running: dict[str, None] = field(default_factory=dict)
    ended: dict[str, None] = field(default_factory=dict)


def _expired(record: TaskRecord, now: float) -> bool:
    return record.terminal and record.expires_at <= now
