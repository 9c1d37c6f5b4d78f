"""Calling tools that answer with tasks, from an `mcp.Client`: `TasksExtension`.

Pass `TasksExtension()` to `mcp.Client(extensions=[...])`: the client then declares the
`io.modelcontextprotocol/tasks` extension on its 2026-07-28 requests, and a `tools/call`
answered with a task is driven to its end behind the same `client.call_tool(...)`: polled with
`tasks/get` (the first poll after `FIRST_POLL`, each wait doubling up to the server's
`pollIntervalMs`), its input requests answered through the client's
own elicitation/sampling/roots callbacks and `tasks/update`, and `tasks/cancel` sent when the
caller gives up (its await is cancelled, or the task asks for input its callbacks cannot give).
A `failed` task raises its JSON-RPC error as `MCPError`; a `cancelled` one raises `MCPError` too.

A poll that fails for a reason that may pass (the server's "try again shortly", a timeout, a lost
connection: any error but a refusal of the request itself, such as "Task not found") is tried
again, backing off from the poll interval to `max_poll_interval`; the task is given up (cancelled,
best effort) only once no poll has been answered for `patience` seconds (60 by default: two of a
toolweave server's default 30-second leases, after which a server reports a task whose worker died
as `failed` itself). The call then raises `MCPError` (-32603) saying contact was lost, and why.

Example:
    >>> import mcp
    >>> from toolweave import Server
    >>> server = Server("ci")
    >>> @server.tool(task_support="required")  # answered only with a task
    ... async def build(target: str) -> str:
    ...     return f"built {target}"
    >>> async def built() -> str:  # in memory; over HTTP: mcp.Client("http://127.0.0.1:8000/mcp", ...)
    ...     async with mcp.Client(server.as_mcp(), extensions=[TasksExtension()]) as client:
    ...         return (await client.call_tool("build", {"target": "docs"})).content[0].text
    >>> anyio.run(built)
    'built docs'
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Literal

import anyio
import mcp.types as mt
from mcp import MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext, ClientSession

from toolweave.core.errors import InputRequired, ToolTimeout, UpstreamError, UpstreamFailed
from toolweave.mcp.input_required import input_requests
from toolweave.tasks.serving import EXTENSION, GetTaskParams, UpdateTaskParams

logger = logging.getLogger("toolweave.tasks")
_CANCEL_SECONDS = 5.0
PATIENCE = 60.0
"""Seconds `drive_task` goes on polling a task whose server answers no poll (see the module)."""
FIRST_POLL = 0.05
"""Seconds before a task's first poll: each wait doubles from it up to the server's
`pollIntervalMs`, so quick work is read back at once (a server answering every call with a task
made a 10 ms tool take a whole interval) and long work is polled at the pace the server asks."""
_DEFAULT_POLL = 0.5
"""Seconds between polls of a server that suggests no (usable) interval."""
_REFUSALS = frozenset(
    {
        mt.PARSE_ERROR,
        mt.INVALID_REQUEST,
        mt.METHOD_NOT_FOUND,
        mt.INVALID_PARAMS,  # "Task not found": the server does not know the task (any more)
        mt.HEADER_MISMATCH,
        mt.MISSING_REQUIRED_CLIENT_CAPABILITY,
        mt.UNSUPPORTED_PROTOCOL_VERSION,
    }
)
"""JSON-RPC codes of a poll the server refused as such: asking again gets the same answer."""


class CreateTaskResult(mt.Result):
    """A `tools/call` answered with a task (`resultType: "task"`)."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskState(mt.Result):
    """What `tasks/get` answers: the task and the payload of its status."""

    task_id: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    status_message: str | None = None
    poll_interval_ms: int | None = None
    ttl_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, dict[str, Any]] | None = None


class GetTask(mt.Request[GetTaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class UpdateTask(mt.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class CancelTask(mt.Request[GetTaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


class TasksExtension(ClientExtension):
    """The tasks extension for `mcp.Client`: tool calls answered with tasks are polled to their end.

    Args:
        max_poll_interval: The longest wait between two polls, whatever the server suggests (seconds).
        patience: How long polls may go unanswered (each failing) before the task is given up (seconds).
    """

    identifier = EXTENSION

    def __init__(self, *, max_poll_interval: float = 5.0, patience: float = PATIENCE) -> None:
        self.max_poll_interval = max_poll_interval
        self.patience = patience

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self._resolve)]

    async def _resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> mt.CallToolResult:
        try:
            return await drive_task(
                ctx.session, created, max_poll_interval=self.max_poll_interval, patience=self.patience
            )
        except UpstreamError as lost:  # the server stayed out of reach: the SDK client's own error
            raise MCPError(mt.INTERNAL_ERROR, str(lost)) from lost.__cause__


Send = Callable[[Any, Any], Awaitable[Any]]
"""How `drive_task` sends its requests: `send(request, result_type)`, like `ClientSession.send_request`."""
Ask = Callable[[str, dict[str, dict[str, Any]]], Awaitable[None]]
"""How `drive_task` gets a task's input: `ask(task_id, requests)` answers them (or raises)."""


async def drive_task(
    session: ClientSession,
    created: CreateTaskResult,
    *,
    max_poll_interval: float = 5.0,
    patience: float = PATIENCE,
    send: Send | None = None,
    ask: Ask | None = None,
    answered: set[str] | None = None,
    on_status: Callable[[str], Awaitable[None]] | None = None,
    server: str = "the server",
    gone: Callable[[], bool] | None = None,
) -> mt.CallToolResult:
    """Poll the task `created` to its end and return its `CallToolResult` (see the module).

    A gateway driving an upstream's task passes `send` (instead of `session.send_request`: it
    bounds each request and turns a lost upstream into its own error) and `ask` (instead of
    answering input requests through `session`'s callbacks), and the keys of the requests it
    already answered (`answered`), which a poll may still list for a moment; `on_status` hears
    each new `statusMessage` of the task; `server` is what the error of a task given up calls the
    server running it (a gateway: `"upstream 'mh'"`); `gone` says whether the connection the
    task was created on is lost (a gateway's upstream session): a poll that fails then is not
    sent again, and the task is given up at once.

    Raises:
        MCPError: the task failed or was cancelled; or a poll was refused (the server no longer
            knows the task).
        UpstreamError: no poll was answered for `patience` seconds (the task was given up).
    """
    send = send or session.send_request
    ask = ask or (lambda task_id, requests: _answer(session, send, task_id, requests))
    task_id, interval, answered = created.task_id, created.poll_interval_ms, set(answered or ())
    status, ramp = created.status_message, FIRST_POLL
    try:
        while True:
            wait = min(ramp, _suggested(interval), max_poll_interval)
            ramp = 2 * wait
            state = await _poll(send, task_id, wait, max_poll_interval, patience, server, gone)
            interval = state.poll_interval_ms or interval
            if on_status is not None and state.status_message and state.status_message != status:
                status = state.status_message
                await on_status(status)
            if state.status in ("completed", "failed", "cancelled"):
                break
            unanswered = {key: wire for key, wire in (state.input_requests or {}).items() if key not in answered}
            if state.status == "input_required" and unanswered:
                await ask(task_id, unanswered)
                answered.update(unanswered)
    except InputRequired:  # the caller asks its own client first (a gateway): the task waits meanwhile
        raise
    except BaseException:  # given up (cancelled, or the input could not be answered): the task too
        await cancel_task(send, task_id, server)
        raise
    if state.status == "completed":
        return mt.CallToolResult.model_validate(state.result or {"content": []}, by_name=False)
    if state.status == "failed":
        failure = state.error or {}
        code = int(failure.get("code", mt.INTERNAL_ERROR))
        raise MCPError(code, str(failure.get("message", "")), failure.get("data"))
    raise MCPError(mt.INTERNAL_ERROR, f"task {task_id} was cancelled")


def _suggested(interval_ms: int | None) -> float:
    """The server's `pollIntervalMs` in seconds; the default for none, zero or a negative one (which
    polled without a pause).

    Example:
        >>> _suggested(2000), _suggested(None), _suggested(-1)
        (2.0, 0.5, 0.5)
    """
    return interval_ms / 1000 if interval_ms is not None and interval_ms > 0 else _DEFAULT_POLL


async def cancel_task(send: Send, task_id: str, server: str = "the server") -> None:
    """Send `tasks/cancel` for `task_id`, best effort: within a few seconds, even from a cancelled
    scope; a failure is logged, never raised (the task ends anyway when its server gives up)."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_SECONDS) as bound:
        try:
            await send(CancelTask(params=GetTaskParams(taskId=task_id)), mt.EmptyResult)
        except Exception as error:
            logger.warning("could not cancel task %s of %s: %s", task_id, server, error)
    if bound.cancelled_caught:
        logger.warning("could not cancel task %s of %s: no answer within %gs", task_id, server, _CANCEL_SECONDS)


async def _poll(
    send: Send,
    task_id: str,
    wait: float,
    max_poll_interval: float,
    patience: float,
    server: str,
    gone: Callable[[], bool] | None = None,
) -> TaskState:
    """The task's state, asked for after `wait` seconds; asked again while polls fail for a reason
    that may pass, backing off, until `patience` seconds after the first failed one was sent. A
    poll that hangs fails at that bound too (a stopped server, a half-open connection); one that
    fails once the connection is `gone` is not sent again."""
    failing_since: float | None = None
    while True:
        await anyio.sleep(wait)
        sent = anyio.current_time()
        # (the last try at the bound still gets a second to answer why it fails)
        budget = patience if failing_since is None else max(patience - (sent - failing_since), min(patience, 1.0))
        try:
            with anyio.fail_after(budget):
                state: TaskState = await send(GetTask(params=GetTaskParams(taskId=task_id)), TaskState)
            return state
        except Exception as error:
            if gone is not None and gone():  # the task's connection is lost: no poll will pass
                raise _lost(error, f"{server} went away", server) from error
            if not _passing(error):
                raise
            if isinstance(error, TimeoutError) and not str(error):  # (anyio's says nothing)
                error = TimeoutError(f"no answer within {budget:g}s")
            failing_since = sent if failing_since is None else failing_since
            silent = anyio.current_time() - failing_since
            if silent >= patience:
                raise _lost(error, f"no poll answered for {silent:.0f}s", server) from error
            wait = min(2 * wait, max_poll_interval, patience - silent)  # the last try at the bound


def _passing(error: Exception) -> bool:
    """Whether a poll's failure may pass if the poll is sent again: the server (or, at a gateway,
    the upstream) could not answer it now, rather than refusing it."""
    if isinstance(error, MCPError):
        return error.error.code not in _REFUSALS
    if isinstance(error, UpstreamError):  # a gateway's own `send`: `code` is set when the upstream refused
        return error.code not in _REFUSALS
    return isinstance(error, ToolTimeout | UpstreamFailed | OSError)


def _lost(error: Exception, why: str, server: str) -> UpstreamError:
    """The error of a task given up for `why` (`server` answered no poll for a while, or went away)."""
    if isinstance(error, ToolTimeout):  # a gateway's bound on one request, not the tool's
        last = f"no answer within {error.seconds:g}s"
    else:
        last = error.error.message if isinstance(error, MCPError) else str(error)
    message = f"lost contact with {server} while its task ran: {why} (the last: {last})"
    return UpstreamError(message, tool=error.tool if isinstance(error, UpstreamError) else None)


async def _answer(session: ClientSession, send: Send, task_id: str, requests: dict[str, dict[str, Any]]) -> None:
    """Answer a task's input requests through the client's own callbacks, with one `tasks/update`."""
    responses: dict[str, dict[str, Any]] = {}
    for key, wire in requests.items():
        request = input_requests().validate_python(wire, by_name=False)
        context = ClientRequestContext(session=session, request_id=key, meta=None)
        response = await session.dispatch_input_request(context, request)
        if isinstance(response, mt.ErrorData):
            raise MCPError.from_error_data(response)
        responses[key] = response.model_dump(by_alias=True, mode="json", exclude_none=True)
    await send(UpdateTask(params=UpdateTaskParams(taskId=task_id, inputResponses=responses)), mt.EmptyResult)
