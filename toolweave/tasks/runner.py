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
  tool runs again with them, as a multi-round-trip call would. A task that ends while it waits
  (cancelled, its input timeout, the server stopping) abandons what else waits for the answers
  (`WaitingInput`: a gateway's upstream task is cancelled).
- `cancel()` cancels the work (its `finally` blocks run) and the task ends `cancelled`; a
  server that stops while tasks run ends them `failed`: at once when its task group ends, or
  after its grace period when it drains (`working`, `idle()` and `stop()` are what
  `toolweave.mcp.shutdown.Drain` waits on). The end is written even through a short store
  outage (tried again for up to 5 s). An ended task's `statusMessage` says how it ended: the
  error of a `failed` one, "The client cancelled the task", none for a `completed` one.
- A store outage does not stop the work: saves of its progress fail, logged once for the outage
  (`toolweave.tasks.upkeep`).
- A store shared by replicas may offer a `relay()` (`RedisTaskStore` does): answers and
  cancellations for a task running on another replica are passed to it there.
- Each running task's record carries a lease its runner renews; a record read after its lease
  lapsed (the process running it died: with a store shared by replicas, another one reads it) is
  ended `failed` by whoever reads it. An ended record is final (the store keeps it over any later
  write): a runner that was only slow (paused, cut off from the store longer than a lease) finds
  its write refused and cancels the work. A renewal writes the whole record, so a store that lost
  it gets it back (`toolweave.tasks.upkeep`).
- A caller holds at most `max_per_caller` records in a store that offers `create`: creating one
  more drops the caller's records that ended first, and when all of them are still running the
  call is answered plainly with an `isError` result (`TOO_MANY`): no task, no work.
- After the store lost its records (Redis restarted empty, or was flushed), a task it cannot find
  is answered "try again shortly" (-32603 `RESTORING`) for one lease, not "Task not found": its
  runner may not have written it again yet. The relay asks the replica running it to do so at
  once; after a lease every runner has renewed its records.

Example:
    >>> runner = TaskRunner(TaskSettings())
    >>> runner.settings.poll_interval
    0.5
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, cast

import anyio
from anyio.abc import TaskGroup
from mcp import MCPError

from toolweave.core.context import Context, LogLevel, enter_context, exit_context
from toolweave.core.errors import InputRequired
from toolweave.core.result import ToolResult
from toolweave.core.waiting import give_up
from toolweave.mcp.convert import wire_result
from toolweave.mcp.input_required import MAX_ROUNDS, to_mcp_requests
from toolweave.tasks.record import TaskRecord, TaskStatus, is_task_id, progress_message
from toolweave.tasks.settings import TaskSettings
from toolweave.tasks.upkeep import Upkeep

logger = logging.getLogger("toolweave.tasks")
Attempt = Callable[[Context], Awaitable[dict[str, Any]]]
"""One run of the call: the `CallToolResult` in wire form, or `InputRequired`, or `MCPError`."""
STOPPED = {"code": -32603, "message": "The server stopped before the task finished"}
LOST = {"code": -32603, "message": "The server running the task stopped answering"}
CANCELLED = "The client cancelled the task"
RESTORING = "Tasks are unavailable right now: the task store is being restored (try again shortly)"
TOO_MANY = (
    "Too many tasks are running for this caller (the most it may hold is {limit}): wait for one to end,"
    " or cancel one (tasks/cancel), then call again"
)
_FINAL_WRITE_SECONDS = 5.0
_FINAL_WRITE_RETRY_SECONDS = 0.25


@dataclass(slots=True)
class _Asked:
    """What an `input_required` task waits for: wire key -> the tool's own name, and the answers."""

    keys: dict[str, str]
    answers: dict[str, Any] = field(default_factory=dict)
    arrived: anyio.Event = field(default_factory=anyio.Event)

    def outstanding(self) -> dict[str, str]:
        return {key: name for key, name in self.keys.items() if name not in self.answers}


Ending = tuple[str, dict[str, Any]]
"""How a task's work ended: `("completed", {"result": ...})`, `("failed", {"error": ...})`,
`("cancelled", {})`, or, before the task exists, `("input", {"needed": InputRequired})`."""


class WorkWatch(Protocol):
    """Who watches a task's work (the call's telemetry): entered around it, told how it ended."""

    def __enter__(self) -> object: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def ended(self, status: str, result: Mapping[str, Any] | None) -> None: ...


@dataclass(slots=True)
class _Live:
    """A task whose work runs here. Until `decided`, the request that started it still waits for
    its first outcome (`early`): the task is not stored and may never exist for the client."""

    record: TaskRecord
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    decided: bool = False
    """The task exists for the client (its record is written); it may turn false again only when
    the store refused to create it (its caller holds too many running tasks)."""
    stored: bool = False
    """The store took the record once (the task was created): later writes replace it."""
    early: Ending | None = None
    settled: anyio.Event = field(default_factory=anyio.Event)
    asked: _Asked | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    stopped: bool = False
    """Cancelled because the server stops (the task ends `failed`, not `cancelled`)."""
    ended_elsewhere: bool = False
    """The stored record ended without this runner (its lease lapsed; another replica read it):
    the work is cancelled and nothing more is written."""


class TaskRunner:
    """Creates tasks, runs their work in the background and answers for them."""

    def __init__(self, settings: TaskSettings) -> None:
        self.settings = settings
        self.worker = secrets.token_hex(8)
        self._groups: list[TaskGroup] = []
        self._live: dict[str, _Live] = {}
        self._quiet: anyio.Event | None = None
        relay = getattr(settings.store, "relay", None)
        self._relay: Any = relay() if relay is not None else None
        self._upkeep = Upkeep(settings)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Hold the task group task work runs in (while the server serves)."""
        async with anyio.create_task_group() as group:
            self._groups.append(group)
            if len(self._groups) == 1:
                group.start_soon(self._upkeep.renew, self._renew)
                if self._relay is not None:
                    group.start_soon(self._relay.run, self._relayed)  # never holds up serving (an outage)
            try:
                yield
            finally:
                self._groups.remove(group)
                group.cancel_scope.cancel()

    @property
    def serving(self) -> bool:
        """Whether tasks can be started (a server is running)."""
        return bool(self._groups)

    @property
    def working(self) -> int:
        """How many tasks' work runs here now."""
        return len(self._live)

    async def idle(self) -> None:
        """Return once no task's work runs here (each one's end recorded)."""
        while self._live:
            self._quiet = anyio.Event()
            await self._quiet.wait()

    def stop(self) -> int:
        """Cancel the work of every task running here; each ends `failed` ("The server stopped
        before the task finished"), recorded by the time `idle` returns. How many there were."""
        for live in self._live.values():
            live.stopped = True
            live.scope.cancel()
        return len(self._live)

    async def start(
        self, owner: str, tool: str, context: Context, attempt: Attempt, watch: Callable[[], WorkWatch] | None = None
    ) -> TaskRecord | dict[str, Any]:
        """Run `attempt` for `owner` as a task: its record, once `tasks/get` would find it.

        `watch`, if given, makes the watcher of the work, once the work is sure to run.

        With `settings.answer_within`, a call that ends sooner is answered as a plain call
        instead (its result, or its JSON-RPC error raised), and one that asks for input on its
        first round raises that `InputRequired` (the client answers it before any task exists).

        When `owner` holds `max_per_caller` tasks that all still run, the call is answered with
        an `isError` result saying so (`TOO_MANY`), and its work (already started, with
        `answer_within`) is cancelled.

        Raises:
            MCPError: the call failed with a JSON-RPC error within `answer_within`.
            InputRequired: the call asked for input within `answer_within`.
        """
        settings = self.settings
        record = TaskRecord.new(owner, keep=settings.keep, poll_interval=settings.poll_interval, tool=tool)
        record = dataclasses.replace(record, worker=self.worker, lease_until=record.created_at + settings.lease)
        live = _Live(record, decided=settings.answer_within <= 0)
        if live.decided:
            await self._create(live)  # (nothing else writes it yet: no lock)
            if not live.decided:
                return self._too_many()
        self._live[record.task_id] = live
        self._groups[-1].start_soon(self._run, live, context, attempt, watch() if watch is not None else None)
        if live.decided:
            return live.record
        try:
            with anyio.move_on_after(settings.answer_within):
                await live.settled.wait()
            if live.early is not None:
                return _answer_early(live.early)
            live.decided = True
            await self._put(live)
        except BaseException:  # the request was cancelled, or the store failed: nobody will poll this work
            live.scope.cancel()
            raise
        if not live.decided:  # refused: the caller holds too many running tasks
            live.scope.cancel()
            return self._too_many()
        return live.record

    def _too_many(self) -> dict[str, Any]:
        return wire_result(ToolResult.error(TOO_MANY.format(limit=self.settings.max_per_caller)))

    async def find(self, task_id: str, owner: str) -> TaskRecord | None:
        """The task `task_id` if it exists and belongs to `owner`, else `None` (the same for both).

        Raises:
            MCPError: -32603 `RESTORING`: the store lost its records less than a lease ago and has
                none for `task_id` (the replica running it is asked to write it again).
        """
        if not is_task_id(task_id):  # (the store's own keys share its namespace: `generation`, `<id>:lease`)
            return None
        live = self._live.get(task_id)
        if live is not None and live.decided:
            record: TaskRecord | None = live.record
        else:
            record = await self.settings.store.get(task_id)
            restoring = self._upkeep.restoring()  # (on every read: a read may find the store emptied)
            if record is None and restoring:
                if self._relay is not None:  # the replica running it writes it again at once
                    self._relay.announce({"op": "restore", "task": task_id})
                raise MCPError(-32603, RESTORING)
        if record is None or record.owner != owner:
            return None
        if live is None and record.lapsed():  # (a task running here has not lost its worker)
            logger.warning("task %s lost its worker %s: ended failed", task_id, record.worker)
            lost = record.finish("failed", error=LOST, status_message=LOST["message"])
            if await self.settings.store.put(lost) is False:  # it ended meanwhile (slow, not gone): that end stands
                lost = await self.settings.store.get(task_id) or lost
            record = lost
        return record

    def answer(self, task_id: str, responses: Mapping[str, Any]) -> list[str]:
        """Hand the client's answers to a task waiting for them; returns the keys it ignored
        (not outstanding: never asked, answered already, or the task is not waiting). A task
        running on another replica gets them through the relay (which ignores what it must)."""
        live = self._live.get(task_id)
        if live is None and self._relay is not None:
            self._relay.announce({"op": "answer", "task": task_id, "responses": dict(responses)})
            return []
        asked = live.asked if live is not None else None
        outstanding = asked.outstanding() if asked is not None else {}
        ignored = [key for key in responses if key not in outstanding]
        if asked is not None and len(ignored) < len(responses):
            asked.answers.update({outstanding[key]: value for key, value in responses.items() if key in outstanding})
            asked.arrived.set()
        return ignored

    def cancel(self, task_id: str) -> bool:
        """Cancel the work of a task running here, or ask the replica running it through the
        relay; whether the request went anywhere."""
        live = self._live.get(task_id)
        if live is not None:
            live.scope.cancel()
            return True
        return self._relay is not None and bool(self._relay.announce({"op": "cancel", "task": task_id}))

    def _relayed(self, message: dict[str, Any]) -> None:
        """Another replica passed on a request for a task; act on it if the task runs here."""
        task_id = message.get("task")
        if not isinstance(task_id, str) or task_id not in self._live:
            return
        if message.get("op") == "cancel":
            self.cancel(task_id)
        elif message.get("op") == "restore":  # another replica found its record missing
            self._upkeep.renew_soon()
        elif message.get("op") == "answer" and isinstance(message.get("responses"), dict):
            ignored = self.answer(task_id, message["responses"])
            if ignored:
                logger.info(
                    "task %s: ignored relayed answers to %s (not outstanding)", task_id, ", ".join(map(repr, ignored))
                )

    # -- the work ---------------------------------------------------------------------------------

    async def _renew(self, until: float) -> bool:
        """Write each running task's record again, its lease extended to `until`; whether all were saved."""
        saved = True
        for live in list(self._live.values()):
            live.record = dataclasses.replace(live.record, lease_until=until)
            saved = await self._write(live) and saved
        return saved

    async def _run(self, live: _Live, context: Context, attempt: Attempt, watch: WorkWatch | None) -> None:
        with watch if watch is not None else contextlib.nullcontext():
            await self._work(live, context, attempt, watch)

    async def _work(self, live: _Live, context: Context, attempt: Attempt, watch: WorkWatch | None) -> None:
        task_id = live.record.task_id
        context = dataclasses.replace(context, progress_sink=self._progress(live), log_sink=_log(task_id))
        ending: Ending | None = None
        try:
            with live.scope:
                ending = await self._rounds(live, context, attempt)
        except MCPError as error:
            ending = "failed", {"error": error.error.model_dump(mode="json", exclude_none=True)}
        except Exception:
            logger.exception("task %s of tool %r failed", task_id, live.record.tool)
            ending = "failed", {"error": {"code": -32603, "message": "Internal error"}}
        finally:
            if ending is None:
                cancelled = live.scope.cancelled_caught and not live.stopped
                ending = ("cancelled", {}) if cancelled else ("failed", {"error": STOPPED})
            if live.ended_elsewhere:
                ending = "failed", {"error": LOST}
            if watch is not None:
                watch.ended(ending[0], ending[1].get("result"))
            if live.decided and not live.ended_elsewhere:
                with anyio.CancelScope(shield=True), anyio.move_on_after(_FINAL_WRITE_SECONDS) as window:
                    await self._end(live, ending)
                if window.cancelled_caught:
                    logger.error("task %s ended %s, but the store did not take its record", task_id, ending[0])
            else:  # the request that started it is still waiting: it answers with this
                live.early = ending
                live.settled.set()
            self._live.pop(task_id, None)
            if not self._live and self._quiet is not None:
                self._quiet.set()

    async def _rounds(self, live: _Live, context: Context, attempt: Attempt) -> Ending:
        used: set[str] = set()
        waiting: InputRequired | None = None
        for _ in range(MAX_ROUNDS):
            token = enter_context(context)
            try:
                return "completed", {"result": await attempt(context)}
            except InputRequired as needed:
                if not live.decided:
                    return "input", {"needed": needed}
                answers, waiting = await self._between_rounds(live, needed, used), needed
                context = dataclasses.replace(context, input_responses=answers, request_state=needed.state)
            finally:
                exit_context(token)
        if waiting is not None:  # (the last round's answers resume nothing)
            await give_up(waiting)
        raise MCPError(-32603, f"the task asked the client for input more than {MAX_ROUNDS} times")

    async def _between_rounds(self, live: _Live, needed: InputRequired, used: set[str]) -> dict[str, Any]:
        """The answers the next round resumes with; a task that ends meanwhile (cancelled, its
        input timeout, the server stopping) abandons what waits for them (`WaitingInput`)."""
        try:
            if not needed.requests:
                await anyio.sleep(self.settings.poll_interval)
                return {}
            return await self._wait_for_input(live, needed, used)
        except BaseException:
            await give_up(needed)
            raise

    async def _wait_for_input(self, live: _Live, needed: InputRequired, used: set[str]) -> dict[str, Any]:
        asked = live.asked = _Asked(_unique_keys(needed.requests, used))
        wire = {
            name: request.model_dump(by_alias=True, mode="json", exclude_none=True)
            for name, request in to_mcp_requests(needed.requests).items()
        }
        timeout = self.settings.input_timeout or self.settings.keep
        with anyio.move_on_after(timeout) as waited:
            while outstanding := asked.outstanding():
                requests = {key: wire[name] for key, name in outstanding.items()}
                await self._save(live, status="input_required", input_requests=requests)
                await asked.arrived.wait()
                asked.arrived = anyio.Event()
        live.asked = None
        if waited.cancelled_caught:
            raise MCPError(-32603, f"the task waited {timeout:g}s for input that did not come")
        await self._save(live, status="working", input_requests=None, status_message=None)
        return asked.answers

    def _progress(self, live: _Live) -> Callable[[float, float | None, str | None], Awaitable[None]]:
        async def progress(value: float, total: float | None, message: str | None) -> None:
            await self._save(live, status_message=progress_message(value, total, message))

        return progress

    async def _end(self, live: _Live, ending: Ending) -> None:
        status, changes = ending
        # what the status message says once the task ended: why it failed, who cancelled it
        ended = changes["error"]["message"] if status == "failed" else CANCELLED if status == "cancelled" else None
        live.record = live.record.finish(cast(TaskStatus, status), status_message=ended, **changes)
        while True:  # the end is what the client polls for: tried again through a short outage
            try:
                await self._put(live)
                return
            except Exception as error:  # a store outage (the caller bounds the retries)
                self._upkeep.failed(error)
            await anyio.sleep(_FINAL_WRITE_RETRY_SECONDS)

    async def _save(self, live: _Live, **changes: Any) -> None:
        """Record the task's new state (and renew its lease)."""
        live.record = live.record.changed(**changes, lease_until=time.time() + self.settings.lease)
        await self._write(live)

    async def _write(self, live: _Live) -> bool:
        """Store the task's latest state, once it exists for the client; whether the store took it
        (a failing store is logged, once per outage: the work goes on)."""
        if not live.decided:
            return True
        try:
            await self._put(live)
        except Exception as error:
            self._upkeep.failed(error)
            return False
        return True

    async def _create(self, live: _Live) -> None:
        """Store the task's first record: within its caller's `max_per_caller` when the store
        bounds it (`create`); a refusal undoes `decided`, and nothing of the task is written after it."""
        create = getattr(self.settings.store, "create", None)
        if create is None:
            await self.settings.store.put(live.record)
        else:
            live.decided = await create(live.record, self.settings.max_per_caller) is not False
        live.stored = live.decided

    async def _put(self, live: _Live) -> None:
        async with live.lock:  # one write at a time, each of the latest state: none overtakes a newer one
            if not live.decided:  # (its creation was refused while this write waited)
                return
            if live.stored:
                written = await self.settings.store.put(live.record)
            else:
                await self._create(live)
                written = live.decided
        self._upkeep.saved()
        if written is False and live.stored and not live.ended_elsewhere and not live.record.terminal:
            # its record ended without it: stop (a refused write of its own end, a renewal that
            # came after it, found its end there)
            logger.warning(
                "task %s was ended without its worker (its lease lapsed while this process did not answer):"
                " its work is cancelled",
                live.record.task_id,
            )
            live.ended_elsewhere = True
            live.scope.cancel()


def _answer_early(ending: Ending) -> dict[str, Any]:
    """What the request answers for a call that ended (or asked) before it became a task."""
    status, details = ending
    if status == "completed":
        result: dict[str, Any] = details["result"]
        return result
    if status == "input":
        raise details["needed"]
    error = details.get("error", STOPPED)
    raise MCPError(error["code"], error["message"], error.get("data"))


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
