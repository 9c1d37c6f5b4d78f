"""The client side of a `RemoteServer`: one persistent, supervised MCP session per upstream.

`Upstream.start` runs a supervisor in the lifespan's task group. The supervisor connects with
the official `mcp` client (`ClientSession` over stdio, streamable HTTP or legacy SSE, see
`toolweave.mcp.upstream_transport`), negotiates the protocol era, lists the tools
(`toolweave.mcp.upstream_tools`) and the prompts and resources the upstream advertises
(`toolweave.mcp.upstream_components`), and keeps the session until it is lost, the lists current
(`toolweave.mcp.upstream_changes`); then it reconnects with backoff. Every call, `prompts/get`
and `resources/read` shares the one session (with `forward_caller_token`, each caller's go over
its own, see `toolweave.mcp.upstream_callers`).

- the era (`toolweave.mcp.upstream_era`): the 2025 `initialize` handshake first (the upstream's
  `notifications/*/list_changed` then arrive on the connection); an upstream that refuses it, or
  lists tools with task support (it serves the 2026-07-28 tasks extension), is spoken to in the
  2026-07-28 era (`server/discover`), where a `subscriptions/listen` stream brings the list changes;
- progress from the upstream goes to the caller's `ctx.report_progress` (asked for whenever the
  caller's context can deliver it); cancelling a call makes the SDK send `notifications/cancelled`;
- every request, sending included, ends within the remote's `timeout` (default 60 s) or the
  caller's tighter `ctx.deadline`: a hung or stopped upstream answers with a timeout
  (`ToolTimeout` for a call), never holds its caller;
- results (content, structured content, `isError`) pass through unchanged; a 2026-era upstream
  may answer a call with a task or ask for input (`toolweave.mcp.upstream_tasks`); its errors
  are toolweave's as `toolweave.mcp.upstream_errors` says (refused arguments, a request it could
  not serve over the gateway's session: an `UpstreamError` saying so; else masked);
- a lost connection fails the calls in flight with `UpstreamError` naming the upstream; calls
  while it is down fail at once; the last known tools, prompts and resources stay listed;
- when the upstream fails to start or dies, the failure is logged on `toolweave.upstream` at
  WARNING with its last stderr lines (an upstream's own traceback says why), and kept in
  `last_error`.

Example:
    >>> from toolweave.server.remote import RemoteServer
    >>> upstream = Upstream(RemoteServer.stdio("github-mcp-server", ["stdio"], name="gh"))
    >>> upstream.label, upstream.health  # nothing runs until the server holding it starts
    ('gh', 'stopped')
    >>> await upstream.start(task_group)  # starts github-mcp-server  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, contextmanager, nullcontext
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as mt
from anyio.abc import TaskGroup
from mcp import ClientSession, MCPError
from pydantic import ValidationError

from toolweave.core.context import Context
from toolweave.core.errors import InputRequired, ToolTimeout, UpstreamError, UpstreamFailed
from toolweave.core.in_flight import InFlight
from toolweave.core.result import ToolResult
from toolweave.mcp.convert import from_mcp_result
from toolweave.mcp.read_stream import ScrubbedMessages, WatchedStream
from toolweave.mcp.upstream_callers import CallerSessions
from toolweave.mcp.upstream_changes import ListChanges
from toolweave.mcp.upstream_components import UpstreamComponents
from toolweave.mcp.upstream_era import Negotiation, Renegotiate
from toolweave.mcp.upstream_errors import describe_failure, innermost, session_ended, translated
from toolweave.mcp.upstream_lists import ListRequests
from toolweave.mcp.upstream_tasks import CALL_ANSWER, NO_ANSWERS, input_required, resumed_from, task_result
from toolweave.mcp.upstream_tools import UpstreamTools
from toolweave.mcp.upstream_transport import UpstreamTransport, capped
from toolweave.mcp.upstream_withheld import NotedReads, NotedSends, withholding
from toolweave.tasks.client import CreateTaskResult, Send, TasksExtension, UpdateTask
from toolweave.tasks.serving import EXTENSION, UpdateTaskParams
from toolweave.telemetry import events
from toolweave.telemetry.metrics import watch_upstream
from toolweave.telemetry.spans import UpstreamSpan
from toolweave.telemetry.withheld import restored
from toolweave.transforms.redact import held_secrets
from toolweave.version import VERSION

if TYPE_CHECKING:
    from toolweave.server.remote import RemoteServer

logger = logging.getLogger("toolweave.upstream")
_NO_PROGRESS = next(f.default for f in fields(Context) if f.name == "progress_sink")


def _wants_progress(ctx: Context) -> bool:
    """Whether the caller's context can deliver progress (a served request's always can: in-memory
    clients in the 2026 era take progress without a token in `_meta`, so the token cannot decide)."""
    return ctx.progress_sink is not _NO_PROGRESS or "progress_token" in ctx.meta


class Upstream:
    """One upstream MCP server: its supervised session, its tools, and calls to them."""

    def __init__(self, remote: RemoteServer) -> None:
        from toolweave.server.remote import StdioTarget  # (remote imports this module)

        self.remote = remote
        self.spawned = isinstance(remote.target, StdioTarget)
        """Whether the upstream is a process this gateway starts (stdio): its session is its life."""
        self.session: ClientSession | None = None
        self._up = anyio.Event()
        self._lost = anyio.Event()
        self.components = UpstreamComponents(self)
        self.tools = UpstreamTools(remote, self.call, lambda: self.era)
        self.changes = ListChanges(remote, self.tools, self.components)
        self.last_error: str | None = None
        """Why the last connection attempt failed or the session was lost (None while all is well)."""
        self.transport = UpstreamTransport(remote)
        """Opens the connections; keeps the upstream's last stderr lines and HTTP refusal."""
        self.restarting = False
        """Whether a connection attempt after a failure is under way."""
        self.negotiation = Negotiation()
        self.in_flight = InFlight()
        """The requests waiting for the upstream's answer now."""
        self.callers: CallerSessions | None = None
        """The per-caller sessions, when the mount forwards the caller's token."""
        if remote.forward_caller_token:
            self.callers = CallerSessions(
                self, max_sessions=remote.caller_sessions, idle_timeout=remote.caller_session_idle
            )
        self.credentials = held_secrets(remote.target.credentials())
        """The credentials in its headers, URL or environment, held in flight while it lives: an
        upstream's answer quoting one reaches nobody (`ScrubbedMessages`)."""
        watch_upstream(self)

    @property
    def era(self) -> str | None:
        """`"2025"` (the `initialize` handshake) or `"2026"` (`server/discover`), once negotiated."""
        return self.negotiation.era

    @property
    def label(self) -> str:
        """The name used in logs and errors (the mount prefix, by default)."""
        return self.remote.name

    @property
    def health(self) -> str:
        """`up` (a session is open), `restarting` (connecting again after a failure), `down`, or
        `stopped` (its server is not running)."""
        if not self.remote.running:
            return "stopped"
        if self.session is not None:
            return "up"
        return "restarting" if self.restarting else "down"

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self, tasks: TaskGroup) -> None:
        """Start the supervisor in `tasks`; return after the first attempt to connect (or the timeout)."""
        first = anyio.Event()
        if self.callers is not None:
            await tasks.start(self.callers.run, name=f"toolweave caller sessions of {self.label!r}")
        tasks.start_soon(self._supervise, first, name=f"toolweave upstream {self.label!r}")
        with anyio.move_on_after(self.remote.connect_timeout):
            await first.wait()
        if self.session is None:
            if self.last_error is None:  # the first attempt is still waiting: say so, not just "down"
                self.last_error = f"no answer within connect_timeout={self.remote.connect_timeout:g}s"
            logger.warning("[%s] not connected yet; retrying in the background", self.label)

    async def wait_connected(self) -> None:
        """Wait until a session is open."""
        while self.session is None:
            await self._up.wait()

    async def _supervise(self, first: anyio.Event) -> None:
        backoff = self.remote.backoff
        delays = iter(backoff.delays())
        while True:
            opened = anyio.current_time()
            try:
                await self._connect_once(first)
            except Exception as error:
                reason = innermost(error)
                if isinstance(reason, Renegotiate):
                    logger.info("[%s] %s", self.label, reason)
                    continue
                self._failed(describe_failure(error) + self._refusal())
                logger.debug("[%s] failure details", self.label, exc_info=True)
            first.set()
            self.restarting = False
            if anyio.current_time() - opened >= backoff.reset_after:
                delays = iter(backoff.delays())
            delay = next(delays)
            logger.info("[%s] restarting the upstream in %.2fs", self.label, delay)
            await anyio.sleep(delay)
            self.restarting = True
            events.upstream_restarted(self.label)

    @asynccontextmanager
    async def open_session(self, on_end: Callable[[], None], auth: Any = None) -> AsyncIterator[ClientSession]:
        """A new session to the upstream, its handshake done (within `connect_timeout`); `on_end()`
        is called when its connection ends. `auth` (HTTP) replaces the mount's own credentials."""
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(self.transport.open(auth))
            lists = ListRequests(self.label, lambda: session.protocol_version)  # (items the SDK would refuse)
            read, write = withholding(NotedReads(ScrubbedMessages(read), lists), NotedSends(write, lists))
            session = await stack.enter_async_context(
                ClientSession(
                    WatchedStream(read, on_end),
                    write,
                    message_handler=self.changes.on_message,
                    logging_callback=self._on_log,
                    client_info=mt.Implementation(name="toolweave", version=VERSION),
                    # declared on 2026-era sessions only (the SDK drops it from handshake-era ones)
                    extensions={EXTENSION: {}},
                    result_claims={EXTENSION: TasksExtension().claims()},
                )
            )
            # a silent upstream is restarted too
            with self._answered_within("the handshake (initialize or server/discover)"):
                await self.negotiation.negotiate(session, self.label)
            yield session

    @contextmanager
    def _answered_within(self, step: str) -> Iterator[None]:
        """A step of connecting, bounded by `connect_timeout`: a `TimeoutError` naming the step
        (the failure logged and kept in `last_error` says what the upstream did not answer)."""
        seconds = self.remote.connect_timeout
        try:
            with anyio.fail_after(seconds):
                yield
        except TimeoutError:
            raise TimeoutError(f"no answer to {step} within connect_timeout={seconds:g}s") from None

    async def _connect_once(self, first: anyio.Event) -> None:
        lost = self._lost = anyio.Event()
        async with self.open_session(lambda: self._ended(lost)) as session:
            with self._answered_within("tools/list, prompts/list or resources/list"):
                await self.tools.refresh(session)
                self.negotiation.check_listing(self.tools.toolweave_task_support)
                await self.components.refresh(session)
                await self.components.resubscribe(session)
            if lost.is_set():
                return
            self.session = session
            recovered, self.last_error = self.last_error is not None, None
            self._up.set()
            first.set()
            # the news that it is back is said where the news that it was down was (WARNING)
            level, again = (logging.WARNING, " again") if recovered else (logging.INFO, "")
            logger.log(level, "[%s] connected%s to %s", self.label, again, self.remote.target.describe())
            try:
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(self.changes.refresh_stale, session)
                    if self.era == "2026":
                        tasks.start_soon(self.changes.listen, session)
                    await lost.wait()
                    tasks.cancel_scope.cancel()
            finally:
                if self.session is session:
                    self.session = None
                    self._up = anyio.Event()
            self._failed("the connection was lost" + self._refusal())

    def _refusal(self) -> str:
        """How the upstream answered the message it refused last, to add to a failure ("" if none)."""
        said = self.transport.refused
        return f" (the upstream answered {said})" if said else ""

    def traced(self, method: str, target: str) -> UpstreamSpan:
        """The CLIENT span of one request to this upstream (`method` about `target`), whose
        `network.transport` is `pipe` (stdio) or `tcp` (HTTP)."""
        transport = "pipe" if self.spawned else "tcp"
        return UpstreamSpan(self.label, target, transport=transport, method=method)

    def _failed(self, why: str) -> None:
        """Record and log (WARNING) why the upstream is down, with its last words on stderr; a
        retry that fails as the last attempt did is logged at DEBUG (a down upstream would repeat
        the same warning at every backoff step)."""
        why += self.transport.hint()
        again = why == self.last_error  # (a retry failing as the last one did: said once, at WARNING)
        self.last_error = why
        tail = "".join(f"\n  [{self.label}] {line}" for line in self.transport.stderr_tail)
        target = self.remote.target.describe()
        logger.log(
            logging.DEBUG if again else logging.WARNING,
            "[%s] upstream %s failed%s: %s%s",
            self.label,
            target,
            " again" if again else "",
            why,
            tail and f"; its stderr:{tail}",
        )

    async def _on_log(self, params: mt.LoggingMessageNotificationParams) -> None:
        logger.info("[%s] log %s: %s", self.label, params.level, capped(str(params.data)))

    # -- calls -----------------------------------------------------------------------------------

    async def call(
        self, name: str, arguments: dict[str, Any], ctx: Context, *, long_running: bool = False
    ) -> ToolResult:
        """Call the upstream's tool `name` over the shared session; see the module docstring.

        A `long_running` tool (the upstream lists it with task support) called over a
        handshake-era session, where the upstream cannot answer with a task, is one request
        bounded by the caller's deadline only, not by the remote's `timeout`: the call is
        expected to outlast it (a gateway task, or the client's cancellation, ends it).
        """
        subject, action = f"tool {name!r}", f"the call to {name!r}"
        held = long_running and self.era != "2026"

        async def send(request: Any, result_type: Any) -> Any:
            return await self.request(
                request,
                result_type,
                ctx,
                subject=subject,
                action=action,
                progress=ctx.report_progress if _wants_progress(ctx) else None,
                timed_out=lambda seconds: ToolTimeout(name, seconds),
                tool=name,
                remote_timeout=not held,
            )

        needed: InputRequired | None = None
        with self.traced("tools/call", name) as span:  # its context goes in `_meta`
            try:
                result = await self._exchange(name, arguments, ctx, send)
                span.answered(result.is_error is True)
            except InputRequired as asked:  # not a failure: the call goes on once the client answers
                needed = asked
        if needed is not None:
            raise needed
        return from_mcp_result(result)

    async def _exchange(self, name: str, arguments: dict[str, Any], ctx: Context, send: Send) -> mt.CallToolResult:
        """The upstream's result for the call: asked for, or resumed with the answers to the input
        the upstream asked for in an earlier round (its own `requestState`, or its task).

        Raises:
            InputRequired: the upstream (or its task) asks the client for input; the state says
                where to resume.
        """
        resumed = resumed_from(ctx, self.label, name)
        task_id = resumed.get("task") if resumed is not None else None
        if isinstance(task_id, str):
            responses = dict(ctx.input_responses)
            await send(UpdateTask(params=UpdateTaskParams(taskId=task_id, inputResponses=responses)), mt.EmptyResult)
            resumed_task = CreateTaskResult(task_id=task_id, status="working")
            return await self._task_result(resumed_task, send, name, ctx, responses)
        # `send_request`, not `call_tool`: the result passes through exactly as the upstream sent
        # it (our own clients validate structured content against the schema we list).
        params = mt.CallToolRequestParams(name=name, arguments=arguments)
        if resumed is not None:
            wire = {"name": name, "arguments": arguments, "inputResponses": dict(ctx.input_responses)}
            params = mt.CallToolRequestParams.model_validate({**wire, "requestState": resumed.get("state")})
        answer: mt.CallToolResult | mt.InputRequiredResult | CreateTaskResult
        answer = await send(mt.CallToolRequest(params=params), CALL_ANSWER)
        if isinstance(answer, mt.InputRequiredResult):
            requests = answer.input_requests or {}
            asked = {key: it.model_dump(by_alias=True, mode="json", exclude_none=True) for key, it in requests.items()}
            raise input_required(asked, self.label, name, state=answer.request_state)
        if isinstance(answer, CreateTaskResult):
            return await self._task_result(answer, send, name, ctx)
        return answer

    async def _task_result(
        self, created: CreateTaskResult, send: Send, name: str, ctx: Context, answered: Mapping[str, Any] = NO_ANSWERS
    ) -> mt.CallToolResult:
        """The call's result from the task the upstream answered it with, driven over the session
        the task runs on (`toolweave.mcp.upstream_tasks.task_result`). The whole drive counts as
        a request in flight: between two polls none is under way, and an upstream a live reload
        drops must stay open until its tasks' calls have their answers.

        A stdio upstream's session is its process: once it is gone, so is the task, and the drive
        ends at the first failed poll. An HTTP upstream keeps a task for its caller, not for a
        connection: one lost (a proxy cutting an SSE stream, a network blip) is polled on over
        the next session, until `patience`; an upstream restarted without the task answers
        "Task not found", which ends the drive at once."""
        session = self.session
        if session is None:
            raise UpstreamError(f"upstream {self.label!r} went away before its task ended")

        def gone() -> bool:  # (its process ended: a new one does not know the task)
            return self.session is not session

        progress = _wants_progress(ctx)
        with self.in_flight:
            return await task_result(
                created,
                send,
                ctx,
                label=self.label,
                tool=name,
                session=session,
                gone=gone if self.spawned else None,
                wants_progress=progress,
                answered=answered,
            )

    async def request(
        self,
        request: Any,
        result_type: type[Any],
        ctx: Context,
        *,
        subject: str,
        action: str,
        progress: Callable[..., Any] | None = None,
        timed_out: Callable[[float], Exception] | None = None,
        tool: str | None = None,
        for_caller: bool = True,
        remote_timeout: bool = True,
        over: ClientSession | None = None,
    ) -> Any:
        """Send `request` over the shared session (or, for a mount that forwards the caller's
        token and `for_caller`, over the caller's own session), within the caller's deadline
        (`ctx.deadline`) and the remote's own `timeout`, whichever comes first.

        Args:
            subject: What is unavailable while the session is down (`"prompt 'greet'"`).
            action: What failed, in errors (`"the call to 'echo'"`).
            timed_out: The error for a missed deadline (by default an `UpstreamError`).
            tool: The name the errors quote (a tool's or prompt's name, a resource's URI), which
                the server's boundary changes to the name the client used.
            for_caller: Whether the request is made for the caller of `ctx` (a call, a prompt, a
                read), not for the gateway itself (a completion, a subscription).
            remote_timeout: Whether the remote's `timeout` bounds it (else the caller's deadline only).
            over: The session to send over instead of the current one: a new session is not
                current until it is ready, so what it is told first goes over it by name.

        Raises:
            UpstreamError: the session is down (at once), went away during the request, or the
                upstream refused its arguments (JSON-RPC "invalid params"/"not found", in `code`).
            UpstreamFailed: the upstream answered with any other error, or with an answer the SDK
                finds invalid (internal: masked; logged as `invalid Model: where: what`).
        """
        session = over or self.session
        if session is None:
            raise UpstreamError(f"upstream {self.label!r} is not connected; {subject} is unavailable", tool=tool)
        timeout = self.remote.timeout if remote_timeout else None
        if ctx.deadline is not None:
            left = max(ctx.deadline - anyio.current_time(), 0.001)
            timeout = left if timeout is None else min(timeout, left)
        # The whole request is bounded, sending included: an upstream that stopped reading (a
        # stopped process with a full pipe) blocks the write, which the SDK's read timeout does
        # not cover. Cancelled, the SDK still sends `notifications/cancelled` (itself bounded).
        with self.in_flight, anyio.move_on_after(math.inf if timeout is None else timeout) as bound:
            async with self._session_for(ctx, session, for_caller, subject, tool) as used:
                try:
                    return await used.send_request(request, result_type, progress_callback=progress)
                except MCPError as error:
                    failure = restored(error)
                    if session_ended(failure):
                        self._lose(used)
                    raise translated(
                        failure, label=self.label, era=self.era, action=action, tool=tool, request=request
                    ) from None
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    self._lose(used)
                    raise UpstreamError(f"upstream {self.label!r} went away during {action}", tool=tool) from None
                except ValidationError as invalid:  # (pydantic's report quotes the answer: not for the log)
                    answer = describe_failure(invalid)
                    raise UpstreamFailed(f"upstream {self.label!r} answered {action} with {answer}") from None
        assert bound.cancelled_caught and timeout is not None
        if timed_out is not None:
            raise timed_out(timeout)
        raise UpstreamError(f"upstream {self.label!r} did not answer {action} within {timeout:g}s", tool=tool)

    def _session_for(
        self, ctx: Context, session: ClientSession, for_caller: bool, subject: str, tool: str | None
    ) -> AbstractAsyncContextManager[ClientSession]:
        """The shared `session`, or the caller's own one for a mount that forwards its token."""
        if for_caller and self.callers is not None:
            return self.callers.use(ctx, subject=subject, tool=tool)
        return nullcontext(session)

    def _lose(self, session: ClientSession) -> None:
        if self.session is session:
            self._ended(self._lost)
        elif self.callers is not None:
            self.callers.lose(session)

    def _ended(self, lost: anyio.Event) -> None:
        """The connection behind `lost` is gone: calls fail at once from now on."""
        if self._lost is lost and self.session is not None:
            self.session = None
            self._up = anyio.Event()
        lost.set()
