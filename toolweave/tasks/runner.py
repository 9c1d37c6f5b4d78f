"""`TaskRunner`: runs tool calls in the background as tasks and answers for them.

A task's work runs in the server's own task group (entered with `running()` for as long as the
server serves), never in the request that created it, so the request is answered at once and the
work outlives it. The work's coroutine is the only writer of its record: it moves the task
through `working` and `input_required` to `completed`, `failed` or `cancelled`, and the final
write happens even when the work is cancelled.

- Progress the tool reports becomes the task's `statusMessage`; log messages go to the
  `toolweave.tasks` logger (a task has no request to send them on).
- `InputRequired` becomes `input_required`: the record lists what is outstanding (keys unique
  over the task's life), `answer()` hands over the client's answers, and when all are in the
  tool runs again with them, as a multi-round-trip call would.
- `cancel()` cancels the work (its `finally` blocks run) and the task ends `cancelled`; a
  server that stops while tasks run ends them `failed`.
- Each running task's record carries a lease its runner renews; a record read after its lease
  lapsed (the process running it died: with a store shared by replicas, another one reads it) is
  ended `failed` by whoever reads it.

Example:
    >>> runner = TaskRunner(TaskSettings())
    >>> runner.settings.poll_interval
    0.5
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskGroup
from mcp import MCPError

from toolweave.core.context import Context, LogLevel, enter_context, exit_context
from toolweave.core.errors import InputRequired
from toolweave.mcp.input_required import MAX_ROUNDS, to_mcp_requests
from toolweave.tasks.record import TaskRecord, TaskStatus
from toolweave.tasks.store import MemoryTaskStore, TaskStore

logger = logging.getLogger("toolweave.tasks")
Attempt = Callable[[Context], Awaitable[dict[str, Any]]]
"""One run of the call: the `CallToolResult` in wire form, or `InputRequired`, or `MCPError`."""
STOPPED = {"code": -32603, "message": "The server stopped before the task finished"}
LOST = {"code": -32603, "message": "The server running the task stopped answering"}
_FINAL_WRITE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class TaskSettings:
    """How a server keeps and runs its tasks.

    Attributes:
        store: Where task records live (in memory by default).
        keep: Seconds a task's record is kept after its last change (its result's time to live).
        poll_interval: Seconds between polls the client is asked to keep to.
        input_timeout: Seconds an `input_required` task waits for its answers before it fails;
            `None`: as long as `keep`.
        lease: Seconds a running task's record stays vouched for without a renewal (renewed every
            third of it); past it, the task is taken for lost and ends `failed`.
    """

    store: TaskStore = field(default_factory=MemoryTaskStore)
    keep: float = 3600.0
    poll_interval: float = 0.5
    input_timeout: float | None = None
    lease: float = 30.0

    def __post_init__(self) -> None:
        for name in ("keep", "poll_interval", "lease"):
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"TaskSettings.{name} must be a positive number of seconds, not {value!r}")
        if not isinstance(self.store, TaskStore):
            raise TypeError(f"TaskSettings.store must have async put() and get(), not {type(self.store).__name__}")


@dataclass(slots=True)
class _Asked:
    """What an `input_required` task waits for: wire key -> the tool's own name, and the answers."""

    keys: dict[str, str]
    answers: dict[str, Any] = field(default_factory=dict)
    arrived: anyio.Event = field(default_factory=anyio.Event)

    def outstanding(self) -> dict[str, str]:
        return {key: name for key, name in self.keys.items() if name not in self.answers}


class TaskRunner:
    """Creates tasks, runs their work in the background and answers for them."""

    def __init__(self, settings: TaskSettings) -> None:
        self.settings = settings
        self.worker = secrets.token_hex(8)
        self._groups: list[TaskGroup] = []
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._asked: dict[str, _Asked] = {}
        self._records: dict[str, TaskRecord] = {}

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Hold the task group task work runs in (while the server serves)."""
        async with anyio.create_task_group() as group:
            self._groups.append(group)
            if len(self._groups) == 1:
                group.start_soon(self._renew_leases)
            try:
                yield
            finally:
                self._groups.remove(group)
                group.cancel_scope.cancel()

    @property
    def serving(self) -> bool:
        """Whether tasks can be started (a server is running)."""
        return bool(self._groups)

    async def start(self, owner: str, tool: str, context: Context, attempt: Attempt) -> TaskRecord:
        """Create a task for `owner` running `attempt`; returns once `tasks/get` would find it."""
        settings = self.settings
        record = TaskRecord.new(owner, keep=settings.keep, poll_interval=settings.poll_interval, tool=tool)
        record = dataclasses.replace(record, worker=self.worker, lease_until=record.created_at + settings.lease)
        await settings.store.put(record)
        self._records[record.task_id] = record
        self._scopes[record.task_id] = anyio.CancelScope()
        self._groups[-1].start_soon(self._run, record.task_id, context, attempt)
        return record

    async def find(self, task_id: str, owner: str) -> TaskRecord | None:
        """The task `task_id` if it exists and belongs to `owner`, else `None` (the same for both)."""
        record = self._records.get(task_id) or await self.settings.store.get(task_id)
        if record is None or record.owner != owner:
            return None
        if record.lapsed():
            logger.warning("task %s lost its worker %s: ended failed", task_id, record.worker)
            record = record.finish("failed", error=LOST, status_message=LOST["message"])
            await self.settings.store.put(record)
        return record

    def answer(self, task_id: str, responses: Mapping[str, Any]) -> list[str]:
        """Hand the client's answers to a task waiting for them; returns the keys it ignored
        (not outstanding: never asked, answered already, or the task is not waiting)."""
        asked = self._asked.get(task_id)
        outstanding = asked.outstanding() if asked is not None else {}
        ignored = [key for key in responses if key not in outstanding]
        if asked is not None and len(ignored) < len(responses):
            asked.answers.update({outstanding[key]: value for key, value in responses.items() if key in outstanding})
            asked.arrived.set()
        return ignored

    def cancel(self, task_id: str) -> bool:
        """Cancel the work of a task running here; whether there was any."""
        scope = self._scopes.get(task_id)
        if scope is not None:
            scope.cancel()
        return scope is not None

    # -- the work ---------------------------------------------------------------------------------

    async def _renew_leases(self) -> None:
        """Every third of a lease, extend the lease of each task running here."""
        while True:
            await anyio.sleep(self.settings.lease / 3)
            until = time.time() + self.settings.lease
            for task_id, record in list(self._records.items()):
                if self._records.get(task_id) is record:  # unchanged while we were away
                    await self._write(task_id, dataclasses.replace(record, lease_until=until))

    async def _run(self, task_id: str, context: Context, attempt: Attempt) -> None:
        scope = self._scopes[task_id]
        context = dataclasses.replace(context, progress_sink=self._progress(task_id), log_sink=_log(task_id))
        ending: tuple[TaskStatus, dict[str, Any]] | None = None
        try:
            with scope:
                ending = await self._rounds(task_id, context, attempt)
        except MCPError as error:
            ending = "failed", {"error": error.error.model_dump(mode="json", exclude_none=True)}
        except Exception:
            logger.exception("task %s of tool %r failed", task_id, self._records[task_id].tool)
            ending = "failed", {"error": {"code": -32603, "message": "Internal error"}}
        finally:
            if ending is None:
                cancelled = scope.cancelled_caught
                ending = ("cancelled", {}) if cancelled else ("failed", {"error": STOPPED})
            status, changes = ending
            if status == "failed":
                changes["status_message"] = changes["error"]["message"]
            with anyio.CancelScope(shield=True), anyio.move_on_after(_FINAL_WRITE_SECONDS):
                await self._save(task_id, finished=status, **changes)
            self._scopes.pop(task_id, None)
            self._asked.pop(task_id, None)
            self._records.pop(task_id, None)

    async def _rounds(self, task_id: str, context: Context, attempt: Attempt) -> tuple[TaskStatus, dict[str, Any]]:
        used: set[str] = set()
        for _ in range(MAX_ROUNDS):
            token = enter_context(context)
            try:
                return "completed", {"result": await attempt(context)}
            except InputRequired as needed:
                answers = await self._wait_for_input(task_id, needed, used) if needed.requests else {}
                if not needed.requests:
                    await anyio.sleep(self.settings.poll_interval)
                context = dataclasses.replace(context, input_responses=answers, request_state=needed.state)
            finally:
                exit_context(token)
        raise MCPError(-32603, f"the task asked the client for input more than {MAX_ROUNDS} times")

    async def _wait_for_input(self, task_id: str, needed: InputRequired, used: set[str]) -> dict[str, Any]:
        asked = self._asked[task_id] = _Asked(_unique_keys(needed.requests, used))
        wire = {name: request.model_dump(by_alias=True, mode="json", exclude_none=True)
                for name, request in to_mcp_requests(needed.requests).items()}
        timeout = self.settings.input_timeout or self.settings.keep
        with anyio.move_on_after(timeout) as waited:
            while outstanding := asked.outstanding():
                requests = {key: wire[name] for key, name in outstanding.items()}
                await self._save(task_id, status="input_required", input_requests=requests)
                await asked.arrived.wait()
                asked.arrived = anyio.Event()
        self._asked.pop(task_id, None)
        if waited.cancelled_caught:
            raise MCPError(-32603, f"the task waited {timeout:g}s for input that did not come")
        await self._save(task_id, status="working", input_requests=None, status_message=None)
        return asked.answers

    def _progress(self, task_id: str) -> Callable[[float, float | None, str | None], Awaitable[None]]:
        async def progress(value: float, total: float | None, message: str | None) -> None:
            text = f"{value:g}/{total:g}" if total is not None else f"{value:g}"
            await self._save(task_id, status_message=f"{text}: {message}" if message else text)

        return progress

    async def _save(self, task_id: str, *, finished: TaskStatus | None = None, **changes: Any) -> None:
        """Write the task's new state (a failing store is logged: the work goes on)."""
        record = self._records.get(task_id)
        if record is None:
            return
        record = record.finish(finished, **changes) if finished is not None else record.changed(**changes)
        if not record.terminal:
            record = dataclasses.replace(record, lease_until=time.time() + self.settings.lease)
        await self._write(task_id, record)

    async def _write(self, task_id: str, record: TaskRecord) -> None:
        self._records[task_id] = record
        try:
            await self.settings.store.put(record)
        except Exception:
            logger.exception("could not save task %s (%s)", task_id, record.status)


def _unique_keys(requests: Mapping[str, Any], used: set[str]) -> dict[str, str]:
    """A wire key for each of a round's request names, never one an earlier round used."""
    keys: dict[str, str] = {}
    for name in requests:
        key, n = name, 1
        while key in used:
            n += 1
            key = f"{name}.{n}"
        used.add(key)
        keys[key] = name
    return keys


def _log(task_id: str) -> Callable[[LogLevel, Any, str | None], Awaitable[None]]:
    async def log(level: LogLevel, data: Any, name: str | None) -> None:
        numeric = logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
        logger.log(numeric, "task %s: %s", task_id, data)

    return log
