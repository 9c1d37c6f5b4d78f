"""Serving tasks over MCP: the `io.modelcontextprotocol/tasks` extension (2026-07-28).

`TaskService` is what a served `Server` uses to answer tool calls with tasks:

- `offer()` decides, per `tools/call`, whether the call becomes a task: the tool's
  `task_support` is `"optional"` or `"required"` and the client put the extension in this
  request's capabilities (2026-07-28). The answer is a `CreateTaskResult` (`resultType: "task"`)
  at once; the call runs in the background through the same path as a plain call (validation,
  injection, middleware, masking). A client that did not opt in gets the plain call, or
  JSON-RPC `-32021` naming the extension when the tool is `"required"` (`without_tasks`: a
  handshake-era client is told the protocol revision tasks need as well).
- `tasks/get`, `tasks/update` and `tasks/cancel` answer for the caller's own tasks only: a task
  id of another caller is `-32602` "Task not found", exactly like an id that never existed;
  a client that did not declare the extension gets `-32021`; over HTTP, an `Mcp-Name` header
  that is not the task id is `-32020` (it is what load balancers route tasks by).

Handshake-era clients (2025-11-25 and older) never get tasks: the SDK sieves their `tools/call`
results to `CallToolResult`, so they get the plain call (and `-32021` for a `"required"` tool).

Example:
    >>> from toolweave import Server
    >>> server = Server("ci")
    >>> settings = configure_tasks(server, keep=600, poll_interval=2)
    >>> tasks_settings(server).poll_interval
    2
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import mcp.types as mt
from mcp import MCPError
from mcp.server import Server as LowLevelServer
from mcp.server import ServerRequestContext
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from mcp_types.version import LATEST_MODERN_VERSION, MODERN_PROTOCOL_VERSIONS
from pydantic import Field, TypeAdapter, ValidationError

from toolweave.core.context import Context
from toolweave.core.errors import UnknownTool
from toolweave.mcp.errors import protocol_error
from toolweave.mcp.guard import own_request_params
from toolweave.middleware.keys import caller_key
from toolweave.server.catalog import Entry
from toolweave.store import RedisStore, StoreUnavailable
from toolweave.tasks.record import TaskRecord
from toolweave.tasks.redis_store import RedisTaskStore
from toolweave.tasks.runner import TaskRunner, WorkWatch
from toolweave.tasks.settings import TaskSettings
from toolweave.tasks.store import MemoryTaskStore, TaskStore

EXTENSION = "io.modelcontextprotocol/tasks"
REQUIRED: dict[str, Any] = {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
NOT_FOUND = "Failed to retrieve task: Task not found"
UNAVAILABLE = "Tasks are unavailable right now: the task store cannot be reached (try again shortly)"
logger = logging.getLogger("toolweave.tasks")
_settings: weakref.WeakKeyDictionary[Any, TaskSettings] = weakref.WeakKeyDictionary()


def configure_tasks(
    server: Any,
    *,
    store: TaskStore | None = None,
    keep: float = 3600.0,
    poll_interval: float = 0.5,
    input_timeout: float | None = None,
    lease: float = 30.0,
    answer_within: float = 0.0,
    max_per_caller: int = 1000,
) -> TaskSettings:
    """Set how `server` keeps and runs its tasks (before it serves); see `TaskSettings`.

    Example:
        >>> from toolweave import Server
        >>> configure_tasks(Server("ci"), keep=60).keep
        60
    """
    settings = TaskSettings(
        store=store if store is not None else default_store(server),
        keep=keep,
        poll_interval=poll_interval,
        input_timeout=input_timeout,
        lease=lease,
        answer_within=answer_within,
        max_per_caller=max_per_caller,
    )
    _settings[server] = settings
    return settings


def tasks_settings(server: Any) -> TaskSettings:
    """How `server` keeps and runs its tasks (the defaults unless `configure_tasks` was called)."""
    settings = _settings.get(server)
    if settings is None:
        settings = _settings[server] = TaskSettings(store=default_store(server))
    return settings


def default_store(server: Any) -> TaskStore:
    """Where `server` keeps tasks unless told: its own store when that is Redis (shared by its
    replicas), else this process's memory."""
    store = getattr(server, "store", None)
    return RedisTaskStore(store, server=server.name) if isinstance(store, RedisStore) else MemoryTaskStore()


@own_request_params
class GetTaskParams(mt.RequestParams):
    """`tasks/get` and `tasks/cancel` params."""

    task_id: str = Field(alias="taskId")


@own_request_params
class UpdateTaskParams(GetTaskParams):
    """`tasks/update` params: the client's answers, by the keys of the task's `inputRequests`
    (an answer to an outstanding request is checked when it arrives; others are ignored)."""

    input_responses: dict[str, Any] = Field(alias="inputResponses")


def opted_in(ctx: ServerRequestContext[Any], context: Context) -> bool:
    """Whether this request's client accepts tasks (2026-07-28, the extension in its capabilities)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    extensions = context.client_capabilities.get("extensions")
    return isinstance(extensions, dict) and EXTENSION in extensions


def without_tasks(what: str, version: str | None) -> MCPError:
    """`-32021` for a request that needs tasks from a client that cannot have them: `what` it
    was, then what the client lacks. A handshake-era session (2025-11-25 and older) never gets
    tasks, so declaring the extension is not enough: it is told the protocol revision too.

    Example:
        >>> refused = without_tasks("Tool 'export' runs only as a task", "2025-11-25").error
        >>> refused.code, refused.message.endswith("extension, and this session speaks 2025-11-25")
        (-32021, True)
    """
    if version in MODERN_PROTOCOL_VERSIONS:
        message = f"{what}: declare the {EXTENSION} extension"
    else:
        message = (
            f"{what}: tasks need protocol {LATEST_MODERN_VERSION} with the {EXTENSION} extension,"
            f" and this session speaks {version}"
        )
    return MCPError(mt.MISSING_REQUIRED_CLIENT_CAPABILITY, message, REQUIRED)


class TaskService:
    """Tasks for one served `Server`: the `tools/call` offer and the `tasks/*` methods.

    It is the `Background` a served server's `toolweave.mcp.shutdown.Drain` waits for: on
    SIGTERM the tasks running get the grace period, and their clients can still poll them.
    """

    follow_ups: frozenset[str] = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
    """The methods about tasks already running (served while the server drains)."""

    def __init__(self, server: Any, context_of: Callable[[ServerRequestContext[Any]], Context]) -> None:
        self.server = server
        self._context_of = context_of
        self._runner: TaskRunner | None = None

    @property
    def runner(self) -> TaskRunner:
        """The runner (built on first use, with the server's `tasks_settings`)."""
        if self._runner is None:
            self._runner = TaskRunner(tasks_settings(self.server))
        return self._runner

    def install(self, lowlevel: LowLevelServer[Any]) -> None:
        """Advertise the extension and serve `tasks/get`, `tasks/update`, `tasks/cancel` on `lowlevel`."""
        lowlevel.extensions[EXTENSION] = {}
        lowlevel.add_request_handler("tasks/get", GetTaskParams, self.get)
        lowlevel.add_request_handler("tasks/update", UpdateTaskParams, self.update)
        lowlevel.add_request_handler("tasks/cancel", GetTaskParams, self.cancel)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run task work while the server serves."""
        async with self.runner.running():
            yield

    @property
    def working(self) -> int:
        """How many tasks' work runs in this process now."""
        return self.runner.working

    async def idle(self) -> None:
        """Return once no task's work runs in this process (each one's end recorded)."""
        await self.runner.idle()

    def stop(self) -> int:
        """End every task running in this process `failed` (the server stops); how many."""
        return self.runner.stop()

    def may_offer(self, name: str) -> bool:
        """Whether a call of the tool `name` may become a task (it declares task support): the
        others skip `offer`."""
        return self._task_entry(name) is not None

    def _task_entry(self, name: str) -> Entry[Any] | None:
        """The catalog entry of the tool `name` if it declares task support (looked up on each
        use: a reload may replace the catalog while a call waits for input)."""
        entry = self.server.catalog.entries.get(name)
        return None if entry is None or entry.component.task_support == "none" else entry

    async def offer(
        self,
        ctx: ServerRequestContext[Any],
        params: mt.CallToolRequestParams,
        context: Context,
        attempt: Callable[[Context], Awaitable[dict[str, Any]]],
        watch: Callable[[], WorkWatch] | None = None,
    ) -> dict[str, Any] | None:
        """A `CreateTaskResult` for this call if it runs as a task, else `None` (a plain call);
        `watch` makes the watcher of its work (see `TaskRunner.start`).

        With `answer_within` set, a task-capable call that ends that soon answers its result (in
        wire form) instead, and one that asks for input on its first round raises that
        `InputRequired` (the caller answers it the multi-round-trip way).

        Raises:
            MCPError: `-32021` for a `"required"` tool and a client that did not opt in;
                `-32602` for a tool the caller may not use; the call's own JSON-RPC error.
            InputRequired: the call asked for input before it became a task.
        """
        entry = self._task_entry(params.name)
        if entry is None:
            return None
        if entry.component.access is not None:  # first: a tool the caller may not use is unknown, task or not
            try:
                self.server.catalog.admitted(entry, params.name, context)
            except UnknownTool as error:
                raise protocol_error(error) from None
        if not opted_in(ctx, context) or not self.runner.serving:
            if entry.component.task_support == "required":
                raise without_tasks(f"Tool '{params.name}' runs only as a task", ctx.protocol_version)
            return None

        with _store_reachable():
            started = await self.runner.start(caller_key(context), params.name, context, attempt, watch)
        if isinstance(started, TaskRecord):
            return {"resultType": "task", **started.to_wire()}
        return started

    async def get(self, ctx: ServerRequestContext[Any], params: GetTaskParams) -> dict[str, Any]:
        """`tasks/get`: the caller's task, with its result, error or outstanding input."""
        record = await self._find(ctx, params.task_id)
        return {"resultType": "complete", **record.to_wire()}

    async def update(self, ctx: ServerRequestContext[Any], params: UpdateTaskParams) -> dict[str, Any]:
        """`tasks/update`: the client's answers to what the task asked (others are ignored)."""
        record = await self._find(ctx, params.task_id)
        responses = dict(params.input_responses)
        for key in responses.keys() & (record.input_requests or {}).keys():
            responses[key] = _checked_answer(key, responses[key])
        ignored = self.runner.answer(params.task_id, responses)
        if ignored:
            logger.info(
                "task %s: ignored answers to %s (not outstanding)", params.task_id, ", ".join(map(repr, ignored))
            )
        return {"resultType": "complete"}

    async def cancel(self, ctx: ServerRequestContext[Any], params: GetTaskParams) -> dict[str, Any]:
        """`tasks/cancel`: cancel the caller's task (an ended task stays as it ended)."""
        record = await self._find(ctx, params.task_id)
        if not record.terminal and not self.runner.cancel(params.task_id):
            logger.warning("task %s is not running here and no relay reaches it: not cancelled", params.task_id)
        return {"resultType": "complete"}

    async def _find(self, ctx: ServerRequestContext[Any], task_id: str) -> Any:
        context = self._context_of(ctx)
        extensions = context.client_capabilities.get("extensions")
        if not isinstance(extensions, dict) or EXTENSION not in extensions:
            raise without_tasks(f"{ctx.method} answers only clients that accept tasks", ctx.protocol_version)
        routed = context.headers.get(MCP_NAME_HEADER)
        if routed is not None and decode_header_value(routed) != task_id:  # it routes the request: it must agree
            raise MCPError(mt.HEADER_MISMATCH, f"the {MCP_NAME_HEADER} header does not match params.taskId")
        with _store_reachable():
            record = await self.runner.find(task_id, caller_key(context))
        if record is None:
            raise MCPError(mt.INVALID_PARAMS, NOT_FOUND)
        return record


@contextmanager
def _store_reachable() -> Iterator[None]:
    """An outage of the task store (Redis) as the client's answer: `-32603` saying so, not an
    internal error with an incident id (the store logs the outage once, when it begins)."""
    try:
        yield
    except StoreUnavailable:
        raise MCPError(mt.INTERNAL_ERROR, UNAVAILABLE) from None


_ANSWER: TypeAdapter[mt.InputResponse] = TypeAdapter(mt.InputResponse)


def _checked_answer(key: str, answer: Any) -> dict[str, Any]:
    """An answer to the outstanding request `key`, in wire form, if it is an elicitation,
    sampling or roots result (as a retried call's answers are checked), else -32602."""
    try:
        checked = _ANSWER.validate_python(answer, by_name=False)
    except ValidationError:
        message = f"inputResponses[{key!r}] is not an elicitation, sampling or roots result"
        raise MCPError(mt.INVALID_PARAMS, message) from None
    wire: dict[str, Any] = checked.model_dump(by_alias=True, mode="json", exclude_none=True)
    return wire
