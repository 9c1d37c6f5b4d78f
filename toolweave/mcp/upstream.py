"""The client side of a `RemoteServer`: one persistent, supervised MCP session per upstream.

`Upstream.start` runs a supervisor in the lifespan's task group. The supervisor connects with
the official `mcp` client (`ClientSession` over `stdio_client`, `streamable_http_client` or the
legacy `sse_client`), negotiates the protocol era, lists the tools (and the prompts and resources
the upstream advertises, see `toolweave.mcp.upstream_components`), and keeps the session until
it is lost; then it reconnects with backoff. Every call, `prompts/get` and `resources/read` shares the one session
(with `forward_caller_token`, each caller's go over its own, see `toolweave.mcp.upstream_callers`).

- the era (`toolweave.mcp.upstream_era`): the 2025 `initialize` handshake first (the upstream's
  `notifications/*/list_changed` then arrive on the connection); an upstream that refuses it, or
  lists tools with task support (it serves the 2026-07-28 tasks extension), is spoken to in the
  2026-07-28 era (`server/discover`), where a `subscriptions/listen` stream brings the list changes;

- progress from the upstream goes to the caller's `ctx.report_progress` (asked for whenever the
  caller's context can deliver it); cancelling a call makes the SDK send `notifications/cancelled`;
- every request, sending included, ends within the remote's `timeout` (default 60 s) or the
  caller's tighter `ctx.deadline`: a hung or stopped upstream answers with a timeout
  (`ToolTimeout` for a call), never holds its caller;
- results (content, structured content, `isError`) pass through unchanged; a 2026-era upstream,
  told the gateway takes tasks, may answer a call with a task, polled here to its result (each
  poll bounded like any request) and cancelled upstream when the call is; input it asks for
  (in the call, or in its task) is the call's `InputRequired`, answered back upstream next round.
  A call the upstream refuses for a capability the gateway's session lacks (`-32021`), or that
  fails because a handshake-era upstream asked for input the gateway does not pass on, is an
  `UpstreamError` saying so (not a masked internal error);
- a lost connection fails the calls in flight with `UpstreamError` naming the upstream; calls
  while it is down fail at once; the last known tools, prompts and resources stay listed;
- the upstream's stderr is logged line by line on `toolweave.upstream` (INFO), prefixed
  `[name]`; when the upstream fails to start or dies, the failure is logged at WARNING with its
  last stderr lines (an upstream's own traceback says why), and kept in `last_error`;
- on shutdown the SDK closes stdin, then terminates and kills the process group, and reaps it.

Example:
    >>> from toolweave.server.remote import RemoteServer
    >>> upstream = Upstream(RemoteServer.stdio("github-mcp-server", ["stdio"], name="gh"))
    >>> upstream.label, upstream.health  # nothing runs until the server holding it starts
    ('gh', 'stopped')
    >>> await upstream.start(task_group)  # starts github-mcp-server  # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, nullcontext
from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import mcp.types as mt
from anyio.abc import TaskGroup
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.subscriptions import listen
from mcp.shared.subscriptions import ResourceUpdated
from pydantic import Discriminator, Tag, TypeAdapter

from toolweave.core.context import Context
from toolweave.core.errors import InputRequired, ToolTimeout, UpstreamError, UpstreamFailed
from toolweave.core.in_flight import InFlight
from toolweave.core.input import InputRequest
from toolweave.core.names import NAME_PATTERN
from toolweave.core.result import ToolResult
from toolweave.core.tool import TASK_SUPPORT, Origin, Tool
from toolweave.core.waiting import WaitingInput
from toolweave.mcp.convert import TAGS_META_KEY, TASK_SUPPORT_META_KEY, annotations_from_mcp, from_mcp_result
from toolweave.mcp.read_stream import ReadStream, ScrubbedMessages, WatchedStream
from toolweave.mcp.upstream_callers import CallerSessions
from toolweave.mcp.upstream_components import KINDS, UpstreamComponents
from toolweave.mcp.upstream_era import Negotiation, Renegotiate
from toolweave.mcp.upstream_stdout import reading
from toolweave.tasks.client import CreateTaskResult, Send, TasksExtension, UpdateTask, cancel_task, drive_task
from toolweave.tasks.record import progress_of
from toolweave.tasks.serving import EXTENSION, UpdateTaskParams
from toolweave.telemetry import events
from toolweave.telemetry.metrics import watch_upstream
from toolweave.telemetry.providers import tracing_configured
from toolweave.telemetry.spans import UpstreamSpan
from toolweave.telemetry.withheld import SentArguments, restored, values_in, withhold
from toolweave.version import VERSION

if TYPE_CHECKING:
    from toolweave.server.remote import HttpTarget, RemoteServer, SseTarget, StdioTarget

logger = logging.getLogger("toolweave.upstream")
STDERR_TAIL = 20
"""How many of an upstream's last stderr lines are kept to explain a failure."""
_LOST_CODES = (mt.CONNECTION_CLOSED,)
_INPUT_REFUSED = {
    "Elicitation not supported": "elicitation/create",
    "Sampling not supported": "sampling/createMessage",
    "List roots not supported": "roots/list",
}
"""What the SDK's `ClientSession` answers (`-32600`) an upstream's request for input it has no
callback for (an upstream session has none), by the method refused: the upstream's error then
quotes it."""
_EVENT_KINDS = {"ToolsListChanged": "tools", "PromptsListChanged": "prompts", "ResourcesListChanged": "resources"}
_REFUSED_PARAMS = (mt.INVALID_PARAMS, -32002)  # -32002: "resource not found" of earlier spec revisions
_NOTIFIED: dict[type[Any], str] = {
    mt.ToolListChangedNotification: "tools",
    mt.PromptListChangedNotification: "prompts",
    mt.ResourceListChangedNotification: "resources",
}
_NO_PROGRESS = next(f.default for f in fields(Context) if f.name == "progress_sink")
_ANSWER: TypeAdapter[mt.CallToolResult | mt.InputRequiredResult | CreateTaskResult] = TypeAdapter(
    Annotated[
        Annotated[mt.CallToolResult | mt.InputRequiredResult, Tag("core")] | Annotated[CreateTaskResult, Tag("task")],
        Discriminator(lambda raw: "task" if _result_type(raw) == "task" else "core"),
    ]
)
"""A `tools/call` answer: a result; from a 2026-era upstream, a request for input, or a task."""
_RESUME = "io.toolweave/upstream"
"""The key of the state a call that an upstream asked input for resumes from."""
_NO_ANSWERS: Mapping[str, Any] = {}


def _result_type(raw: Any) -> Any:
    return raw.get("resultType") if isinstance(raw, dict) else getattr(raw, "result_type", None)


def _asked(requests: Mapping[str, Mapping[str, Any]], label: str, tool: str, **resume: Any) -> InputRequired:
    """The client is asked what the upstream asks (wire requests by key); the next round resumes
    from `resume` (the upstream's `state`, or its `task`)."""
    asked = {key: InputRequest(wire["method"], wire.get("params") or {}) for key, wire in requests.items()}
    return InputRequired(asked, state=json.dumps({_RESUME: [label, tool], **resume}))


def _resumed(ctx: Context, label: str, tool: str) -> dict[str, Any] | None:
    """What an earlier round of this call to `label`'s `tool` left to resume from, if anything."""
    if not ctx.request_state:
        return None
    try:
        state = json.loads(ctx.request_state)
    except ValueError:
        return None
    return state if isinstance(state, dict) and state.get(_RESUME) == [label, tool] else None


def _quotable(message: str, request: Any) -> str:
    """An upstream's refusal of `request`, as the gateway may quote it in its own JSON-RPC error.

    A refused call becomes an `isError` result, which no span records: its message is kept whole.
    A refused prompt becomes the gateway's `-32602`, whose message the SDK's server span records:
    the values of the prompt's arguments (the caller's and injected ones) are `[redacted]` in it.
    """
    arguments = None if isinstance(request, mt.CallToolRequest) else getattr(request.params, "arguments", None)
    return withhold(message, values_in(arguments)) if arguments else message


def _wants_progress(ctx: Context) -> bool:
    """Whether the caller's context can deliver progress (a served request's always can: in-memory
    clients in the 2026 era take progress without a token in `_meta`, so the token cannot decide)."""
    return ctx.progress_sink is not _NO_PROGRESS or "progress_token" in ctx.meta


class Upstream:
    """One upstream MCP server: its supervised session, its tools, and calls to them."""

    def __init__(self, remote: RemoteServer) -> None:
        self.remote = remote
        self.session: ClientSession | None = None
        self._name_ok = NAME_PATTERN.fullmatch
        self._up = anyio.Event()
        self._lost = anyio.Event()
        self._refresh = anyio.Event()
        self._stale: set[str] = set()
        self._listed: list[dict[str, Any]] | None = None
        self.components = UpstreamComponents(self)
        self.last_error: str | None = None
        """Why the last connection attempt failed or the session was lost (None while all is well)."""
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self.refused: str | None = None
        """An HTTP upstream's last refusal of a message (`HTTP 401 Unauthorized`), which the SDK
        reports only as "Server returned an error response"; None once one is accepted."""
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
                reason = _innermost(error)
                if isinstance(reason, Renegotiate):
                    logger.info("[%s] %s", self.label, reason)
                    continue
                refused = f" (the upstream answered {self.refused})" if self.refused else ""
                self._failed(_describe(error) + refused)
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
            read, write = await stack.enter_async_context(self._transport(auth))
            read = ScrubbedMessages(read)
            if tracing_configured():  # the SDK's send spans record an upstream's error messages
                sent = SentArguments()
                read, write = ArgumentsWithheld(read, sent), NotedSends(write, sent)
            session = await stack.enter_async_context(
                ClientSession(
                    WatchedStream(read, on_end),
                    write,
                    message_handler=self._on_message,
                    logging_callback=self._on_log,
                    client_info=mt.Implementation(name="toolweave", version=VERSION),
                    # declared on 2026-era sessions only (the SDK drops it from handshake-era ones)
                    extensions={EXTENSION: {}},
                    result_claims={EXTENSION: TasksExtension().claims()},
                )
            )
            with anyio.fail_after(self.remote.connect_timeout):  # a silent upstream is restarted too
                await self.negotiation.negotiate(session, self.label)
            yield session

    async def _connect_once(self, first: anyio.Event) -> None:
        lost = self._lost = anyio.Event()
        async with self.open_session(lambda: self._ended(lost)) as session:
            with anyio.fail_after(self.remote.connect_timeout):
                await self._list_tools(session)
                self.negotiation.check_listing(tool.task_support for tool in self.remote.remote_tools.values())
                await self.components.refresh(session)
                await self.components.resubscribe(session)
            if lost.is_set():
                return
            self.session = session
            self.last_error = None
            self._up.set()
            first.set()
            logger.info("[%s] connected to %s", self.label, self.remote.target.describe())
            try:
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(self._refresher, session)
                    if self.era == "2026":
                        tasks.start_soon(self._listen, session)
                    await lost.wait()
                    tasks.cancel_scope.cancel()
            finally:
                if self.session is session:
                    self.session = None
                    self._up = anyio.Event()
            self._failed("the connection was lost")

    def traced(self, method: str, target: str) -> UpstreamSpan:
        """The CLIENT span of one request to this upstream (`method` about `target`), whose
        `network.transport` is `pipe` (stdio) or `tcp` (HTTP)."""
        from toolweave.server.remote import StdioTarget

        transport = "pipe" if isinstance(self.remote.target, StdioTarget) else "tcp"
        return UpstreamSpan(self.label, target, transport=transport, method=method)

    async def _listen(self, session: ClientSession) -> None:
        """Follow a 2026-era upstream's `subscriptions/listen` stream: the lists it says changed are
        refreshed, its resource updates become the remote's; the stream is opened again whenever
        the set of subscribed URIs changes."""
        capabilities = session.server_capabilities

        def changes(kind: str) -> bool:
            return bool(getattr(getattr(capabilities, kind, None), "list_changed", False))

        flags = {"tools": changes("tools"), "prompts": changes("prompts"), "resources": changes("resources")}
        while True:
            uris = self.components.subscribed()
            if not (any(flags.values()) or uris):
                await self.components.subscriptions_changed()
                continue
            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as tasks:

                    async def reopen() -> None:
                        await self.components.subscriptions_changed()
                        scope.cancel()

                    tasks.start_soon(reopen)
                    await self._follow(session, flags, uris)
                    await anyio.sleep_forever()  # the stream ended: wait for a change of URIs

    async def _follow(self, session: ClientSession, flags: dict[str, bool], uris: list[str]) -> None:
        try:
            async with listen(
                session,
                tools_list_changed=flags["tools"],
                prompts_list_changed=flags["prompts"],
                resources_list_changed=flags["resources"],
                resource_subscriptions=uris,
            ) as subscription:
                async for event in subscription:
                    kind = _EVENT_KINDS.get(type(event).__name__)
                    if kind is not None:
                        self._stale.add(kind)
                        self._refresh.set()
                    elif isinstance(event, ResourceUpdated):
                        self.remote.resource_updated(str(event.uri))
        except Exception as error:
            logger.warning("[%s] no list changes from the upstream: subscriptions/listen failed: %s", self.label, error)

    def _transport(self, auth: Any = None) -> Any:
        from toolweave.server.remote import SseTarget, StdioTarget

        target = self.remote.target
        if isinstance(target, StdioTarget):
            return self._stdio(target)
        if isinstance(target, SseTarget):
            return self._sse(target, auth or target.auth)
        return self._http(target, auth or target.auth)

    @asynccontextmanager
    async def _stdio(self, target: StdioTarget) -> AsyncIterator[Any]:
        params = StdioServerParameters(
            command=target.command,
            args=list(target.args),
            env=dict(target.env) if target.env else None,
            cwd=target.cwd,
        )
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        errlog = os.fdopen(write_fd, "w")
        done = anyio.Event()
        async with anyio.create_task_group() as tasks:
            try:
                with reading(self.label):  # (the client's reader task keeps the mark)
                    async with stdio_client(params, errlog=errlog) as streams:
                        errlog.close()  # the child has its own copy; EOF comes when it exits
                        tasks.start_soon(self._pump_stderr, read_fd, done)
                        read_fd = -1
                        yield streams
            finally:
                errlog.close()
                if read_fd >= 0:
                    os.close(read_fd)
                    done.set()
                with anyio.move_on_after(1.0, shield=True):  # let the last lines (a traceback) through
                    await done.wait()
                tasks.cancel_scope.cancel()

    @asynccontextmanager
    async def _http(self, target: HttpTarget, auth: Any) -> AsyncIterator[Any]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        timeout = httpx2.Timeout(30.0, read=300.0)
        hooks = {"response": [self._heard]}
        client = httpx2.AsyncClient(headers=dict(target.headers or {}), timeout=timeout, auth=auth, event_hooks=hooks)
        self.refused = None
        async with client, streamable_http_client(target.url, http_client=client) as streams:
            yield streams

    async def _heard(self, response: Any) -> None:
        """Note how the upstream answered a message we posted (a refused one: its status)."""
        if response.request.method == "POST":
            refused = response.status_code >= 400
            self.refused = f"HTTP {response.status_code} {response.reason_phrase}".rstrip() if refused else None

    @asynccontextmanager
    async def _sse(self, target: SseTarget, auth: Any) -> AsyncIterator[Any]:
        from mcp.client.sse import sse_client

        # a stream silent for 300 s (the SDK's read timeout; servers ping while idle) counts as lost
        headers = dict(target.headers or {})
        async with sse_client(target.url, headers=headers, timeout=30.0, auth=auth) as streams:
            yield streams

    async def _pump_stderr(self, fd: int, done: anyio.Event) -> None:
        buffer = b""
        try:
            while True:
                await anyio.wait_readable(fd)
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    break
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    self._log_stderr(line)
        finally:
            if buffer:
                self._log_stderr(buffer)
            os.close(fd)
            done.set()

    def _log_stderr(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip()
        if text:
            self.stderr_tail.append(text)
            logger.info("[%s] %s", self.label, text)

    def _failed(self, why: str) -> None:
        """Record and log (WARNING) why the upstream is down, with its last words on stderr; a
        retry that fails as the last attempt did is logged at DEBUG (a down upstream would repeat
        the same warning at every backoff step)."""
        from toolweave.server.remote import HttpTarget, SseTarget

        reached = self.remote.target
        if isinstance(reached, HttpTarget) and not isinstance(reached, SseTarget):
            path = reached.url.split("?", 1)[0].rstrip("/")
            if path.endswith("/sse"):  # some clients try the legacy transport when streamable HTTP fails
                why += " (a URL ending in /sse is usually a legacy SSE server: give it `type: sse`)"
        again = why == self.last_error  # (a retry failing as the last one did: said once, at WARNING)
        self.last_error = why
        tail = "".join(f"\n  [{self.label}] {line}" for line in self.stderr_tail)
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

    # -- tools -----------------------------------------------------------------------------------

    async def _list_tools(self, session: ClientSession) -> None:
        listed: list[mt.Tool] = []
        cursor: str | None = None
        while True:
            params = mt.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        wire = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed]
        if wire == self._listed:
            return
        self._listed = wire
        tools = []
        for item in listed:
            if not self._name_ok(item.name):
                logger.warning("[%s] skipping upstream tool %r: not a valid name", self.label, item.name)
                continue
            tools.append(self._tool(item))
        self.remote.set_remote_tools(tools)

    def _tool(self, wire: mt.Tool) -> Tool:
        meta = dict(wire.meta) if wire.meta else {}
        tags = meta.pop(TAGS_META_KEY, None) or ()
        task_support = meta.pop(TASK_SUPPORT_META_KEY, "none")
        name = wire.name
        call = self.call
        long_running = task_support in ("optional", "required")

        async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            return await call(name, arguments, ctx, long_running=long_running)

        return Tool(
            name=name,
            input_schema=dict(wire.input_schema),
            run=run,
            title=wire.title,
            description=wire.description,
            output_schema=dict(wire.output_schema) if wire.output_schema is not None else None,
            annotations=annotations_from_mcp(wire.annotations),
            tags=frozenset(tags),
            meta=meta or None,
            origin=Origin("remote", f"{self.label} ({self.remote.target.describe()})", name),
            task_support=task_support if task_support in TASK_SUPPORT else "none",
        )

    async def _refresher(self, session: ClientSession) -> None:
        while True:
            await self._refresh.wait()
            self._refresh = anyio.Event()
            stale, self._stale = self._stale, set()
            try:
                with anyio.fail_after(self.remote.timeout):  # a hung upstream cannot wedge later refreshes
                    if "tools" in stale:
                        await self._list_tools(session)
                    await self.components.refresh(session, tuple(kind for kind in KINDS if kind in stale))
            except Exception as error:
                logger.warning("[%s] could not refresh the %s lists: %s", self.label, "/".join(sorted(stale)), error)

    async def _on_message(self, message: Any) -> None:
        kind = _NOTIFIED.get(type(message))
        if kind is not None:
            self._stale.add(kind)
            self._refresh.set()
        elif isinstance(message, mt.ResourceUpdatedNotification):
            self.remote.resource_updated(str(message.params.uri))
        elif isinstance(message, Exception):
            logger.debug("[%s] transport error: %r", self.label, message)

    async def _on_log(self, params: mt.LoggingMessageNotificationParams) -> None:
        logger.info("[%s] log %s: %s", self.label, params.level, params.data)

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
        resumed = _resumed(ctx, self.label, name)
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
        answer = await send(mt.CallToolRequest(params=params), _ANSWER)
        if isinstance(answer, mt.InputRequiredResult):
            requests = answer.input_requests or {}
            asked = {key: it.model_dump(by_alias=True, mode="json", exclude_none=True) for key, it in requests.items()}
            raise _asked(asked, self.label, name, state=answer.request_state)
        if isinstance(answer, CreateTaskResult):
            return await self._task_result(answer, send, name, ctx)
        return answer

    async def _task_result(
        self, created: CreateTaskResult, send: Send, name: str, ctx: Context, answered: Mapping[str, Any] = _NO_ANSWERS
    ) -> mt.CallToolResult:
        """Drive a task the upstream answered a call with (2026-era upstreams that serve the tasks
        extension) to its result: polled with `tasks/get`, each request bounded like any other,
        the whole by the caller's deadline only; cancelling the call cancels the upstream's task;
        its status messages are the call's progress.
        Input the task asks for is asked of the gateway's client (`WaitingInput`, which cancels
        the task if the call is not resumed); the call's next round sends the answers with
        `tasks/update` and polls on. Once the session the task runs on is lost, a failed poll
        ends the call at once ("lost contact with upstream … while its task ran: … went away")."""
        session = self.session
        if session is None:
            raise UpstreamError(f"upstream {self.label!r} went away before its task ended")

        server = f"upstream {self.label!r}"

        async def ask(task_id: str, requests: dict[str, dict[str, Any]]) -> None:
            asked = _asked(requests, self.label, name, task=task_id)  # the task waits for the next round
            raise WaitingInput(asked.requests, state=asked.state, abandon=lambda: cancel_task(send, task_id, server))

        updates = 0

        async def on_status(message: str) -> None:  # the upstream task's news, as the call's progress
            nonlocal updates
            updates += 1
            progress = progress_of(message)  # (a toolweave upstream's progress, passed on as it came)
            await ctx.report_progress(*(progress or (updates, None, message)))

        status = on_status if _wants_progress(ctx) else None
        try:
            return await drive_task(
                session,
                created,
                send=send,
                ask=ask,
                answered=set(answered),
                on_status=status,
                server=server,
                gone=lambda: self.session is not session,  # (a new session does not know the task)
            )
        except MCPError as error:  # the task failed, or was cancelled upstream
            raise UpstreamFailed(f"upstream {self.label!r} task: {error.error.message}") from None

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

        Raises:
            UpstreamError: the session is down (at once), went away during the request, or the
                upstream refused its arguments (JSON-RPC "invalid params"/"not found", in `code`).
            UpstreamFailed: the upstream answered with any other error (internal: masked).
        """
        session = self.session
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
                    raise self._translate(used, action, restored(error), tool, request) from None
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    self._lose(used)
                    raise UpstreamError(f"upstream {self.label!r} went away during {action}", tool=tool) from None
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

    def _translate(
        self, session: ClientSession, action: str, error: MCPError, tool: str | None, request: Any
    ) -> UpstreamError | UpstreamFailed:
        code = error.error.code
        if code in _LOST_CODES:
            self._lose(session)
            return UpstreamError(f"upstream {self.label!r} went away during {action}", tool=tool)
        if error.error.message == "Session terminated":
            self._lose(session)
        if code in _REFUSED_PARAMS:
            message = f"upstream {self.label!r} refused {action}: {_quotable(error.error.message, request)}"
            return UpstreamError(message, code=mt.INVALID_PARAMS, tool=tool)
        unserved = self._unserved(error, action, request)
        if unserved is not None:
            return UpstreamError(unserved, code=code, tool=tool)
        return UpstreamFailed(f"upstream {self.label!r} failed {action} (JSON-RPC {code}): {error.error.message}")

    def _unserved(self, error: MCPError, action: str, request: Any) -> str | None:
        """What to tell the caller of a request the upstream could not serve over this gateway's
        session to it (else None: an internal error): one that needs a client capability the
        session lacks (`-32021`), or a handshake-era upstream's request for input."""
        code, said = error.error.code, _quotable(error.error.message, request)
        if code == mt.MISSING_REQUIRED_CLIENT_CAPABILITY:
            era = "2025 handshake" if self.era != "2026" else "2026-07-28"
            return (
                f"upstream {self.label!r} refused {action}: it needs a client capability the gateway's "
                f"{era} session to it does not declare: {said}"
            )
        asked = _INPUT_REFUSED.get(error.error.message) if code == mt.INVALID_REQUEST else None
        if asked is not None and self.era != "2026":
            return (
                f"upstream {self.label!r} asked for input ({asked}) during {action}: the gateway passes on "
                "input only from an upstream spoken to in the 2026-07-28 era, and this one is spoken to with "
                "the 2025 handshake"
            )
        return None

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


class NotedSends:
    """An upstream's write stream that notes the arguments of each request it sends in `sent`
    (`toolweave.telemetry.withheld`); everything else passes through."""

    def __init__(self, stream: Any, sent: SentArguments) -> None:
        self._stream, self._sent = stream, sent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def send(self, item: Any) -> None:
        self._sent.sending(item)  # before it goes: the answer may be read before `send` returns
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> NotedSends:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class ArgumentsWithheld(ReadStream):
    """An upstream's read stream whose JSON-RPC errors reach the SDK's session (and its send span)
    without the argument values of the requests they answer, noted in `sent`."""

    def __init__(self, stream: Any, sent: SentArguments) -> None:
        super().__init__(stream)
        self._sent = sent

    async def receive(self) -> Any:
        return self._sent.received(await self._stream.receive())


def _innermost(error: BaseException) -> BaseException:
    """The first exception inside (possibly nested) groups: task groups wrap a failure in them."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _describe(error: BaseException) -> str:
    """The innermost cause of a failure, as `Type: message`."""
    error = _innermost(error)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
