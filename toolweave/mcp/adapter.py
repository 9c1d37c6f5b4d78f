"""A toolweave `Server` as the `mcp` SDK's low-level `Server`, for both protocol eras.

- `tools/list` is served from the compiled catalog's cached wire list, in pages;
- `tools/call` builds the request `Context` and calls the catalog: an unknown tool is JSON-RPC
  `-32602`, everything else (invalid arguments, tool errors) an `isError` result;
- a tool raising `MissingCapability` is JSON-RPC `-32021` with `data.requiredCapabilities`;
- handshake-era clients may send `logging/setLevel`; messages below it are not sent to them;
- a tool raising `InputRequired` is an `InputRequiredResult` (2026) or the server asks the client
  itself and runs the tool again (handshake era);
- a task-capable tool's call from a client that accepts tasks is answered with a task
  (`toolweave.tasks.serving`, which also serves `tasks/get|update|cancel`);
- `completion/complete` asks `server.completer`; `resources/subscribe` and `subscriptions/listen`
  subscribers hear about `server.resource_updated(uri)`;
- catalog changes send `notifications/tools/list_changed` to handshake-era connections and
  publish `ToolsListChanged` to 2026-era `subscriptions/listen` streams.

Example:
    >>> import anyio
    >>> import mcp
    >>> server = Server("calc")
    >>> _ = server.add_tool(lambda a, b: a + b, name="add")
    >>> async def added() -> str:
    ...     async with mcp.Client(server.as_mcp()) as client:  # in memory
    ...         return (await client.call_tool("add", {"a": 1, "b": 2})).content[0].text
    >>> anyio.run(added)
    '3'
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import anyio.from_thread
import mcp.types as mt
from mcp import MCPError
from mcp.server import NotificationOptions, ServerRequestContext
from mcp.server import Server as LowLevelServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.runner import serve_dual_era_loop
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp_types.methods import INPUT_REQUIRED_METHODS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette

from toolweave.core.context import Context
from toolweave.core.errors import MissingCapability, UnknownTool, UpstreamError
from toolweave.mcp import input_required
from toolweave.mcp.completion import CompletionHandler
from toolweave.mcp.component_handlers import ComponentHandlers
from toolweave.mcp.convert import wire_result, wire_tool
from toolweave.mcp.disconnect import CancelOnDisconnect
from toolweave.mcp.envelope import RefuseMalformed
from toolweave.mcp.errors import protocol_error
from toolweave.mcp.guard import guard
from toolweave.mcp.levels import ConnectionLevels
from toolweave.mcp.pages import cached_page, page
from toolweave.mcp.request import RequestProgress, caller, connection_of, request_context, verified_caller
from toolweave.mcp.resource_updates import ResourceUpdates
from toolweave.mcp.span_names import bound_span
from toolweave.mcp.stateless import RefuseGetStream
from toolweave.mcp.trace_context import read_trace_context
from toolweave.server.server import Server
from toolweave.server.tools import Failed
from toolweave.tasks.serving import TaskService
from toolweave.telemetry.calls import CallObserver
from toolweave.version import VERSION

logger = logging.getLogger("toolweave.mcp")
_LIST_TOOLS_DEFAULTS = mt.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json", exclude_none=True)
"""What an empty `mt.ListToolsResult` dumps to (the era's defaults: `ttlMs`, `resultType`, ...)."""
_adapters: weakref.WeakKeyDictionary[Server, McpAdapter] = weakref.WeakKeyDictionary()


class _LowLevel(LowLevelServer[Any]):
    """The SDK server, advertising `listChanged` to handshake-era clients on every transport; over
    streamable HTTP each POST body that is not one JSON-RPC message is answered before the SDK
    reads it, alike in both eras and as over stdio (`toolweave.mcp.envelope`); a stateless one
    refuses `GET` (`toolweave.mcp.stateless`); a plain-JSON one cancels a POST whose client left
    (`toolweave.mcp.disconnect`)."""

    def create_initialization_options(self, notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
        options = notification_options or NotificationOptions(True, True, True)
        return super().create_initialization_options(options, *args, **kwargs)

    def streamable_http_app(self, **options: Any) -> Starlette:
        app = super().streamable_http_app(**options)
        path = options.get("streamable_http_path", "/mcp")
        limit = options.get("max_request_body_size", DEFAULT_MAX_REQUEST_BODY_SIZE)
        app.add_middleware(RefuseMalformed, path=path, max_body_size=limit)  # inside the layers added later (auth)
        if options.get("stateless_http", False):
            app.add_middleware(RefuseGetStream, path=path)
        if options.get("json_response", False):  # the SDK watches for a client leaving only on event streams
            app.add_middleware(CancelOnDisconnect, path=path)
        return app


def mcp_server(server: Server) -> LowLevelServer[Any]:
    """The SDK low-level server for `server` (one per toolweave server, built on first use)."""
    adapter = _adapters.get(server)
    if adapter is None:
        adapter = _adapters[server] = McpAdapter(server)
    return adapter.lowlevel


def adapter_for(server: Server) -> McpAdapter:
    """The adapter behind `mcp_server(server)`."""
    mcp_server(server)
    return _adapters[server]


def _weak_update_listener(ref: weakref.ref[McpAdapter]) -> Callable[[str], None]:
    def listener(uri: str) -> None:
        adapter = ref()
        if adapter is not None:
            adapter.resource_updated(uri)

    return listener


def _weak_listener(ref: weakref.ref[McpAdapter], kind: str = "tools") -> Callable[[], None]:
    def listener() -> None:
        adapter = ref()
        if adapter is not None:
            adapter.on_change(kind)

    return listener


class McpAdapter:
    """Owns the SDK server for one toolweave server, and delivers `list_changed` notifications."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.bus = InMemorySubscriptionBus()
        self._connections: dict[int, Any] = {}
        self._levels = ConnectionLevels()
        self._wakeups: set[anyio.Event] = set()
        self._notifiers = 0
        self._loop_thread: int | None = None
        self._token: Any = None
        self._pending: set[str] = set()
        self._updated: list[str] = []
        self.updates = ResourceUpdates(self.bus, server)
        self.tasks = TaskService(server, self.request_context)
        components = ComponentHandlers(self)
        self.lowlevel = _LowLevel(
            server.name,
            version=server.version or VERSION,
            instructions=server.instructions,
            lifespan=self._lifespan,
            get_tool_input_schema=self._input_schema,
            # The SDK runner takes a dict result as the wire result (`runner._dump_result`).
            on_list_tools=cast(Any, self._list_tools),
            on_call_tool=cast(Any, self._call_tool),  # a task is a dict result (`resultType: "task"`)
            on_list_prompts=components.list_prompts,
            on_get_prompt=components.get_prompt,
            on_list_resources=components.list_resources,
            on_list_resource_templates=components.list_resource_templates,
            on_read_resource=components.read_resource,
            on_subscribe_resource=self.updates.subscribe,
            on_unsubscribe_resource=self.updates.unsubscribe,
            on_completion=CompletionHandler(server),
            on_subscriptions_listen=self.updates.counting(ListenHandler(self.bus)),
        )
        self.lowlevel.middleware.insert(1, self._every_request)  # just inside the SDK's OpenTelemetry span
        read_trace_context(self.lowlevel)  # before that span: it reads the request's trace context
        self.observer: CallObserver | None = None
        """Observes calls (spans, metrics) while serving with an OpenTelemetry SDK configured."""
        # Seals the `requestState` of 2026 `InputRequiredResult`s (clients cannot forge or replay
        # it); `guard` runs it where there is state to check or to seal.
        security = RequestStateSecurity.ephemeral()
        self._request_state = RequestStateBoundary(security, default_audience=server.name)
        self.lowlevel.add_request_handler("logging/setLevel", mt.SetLevelRequestParams, self._set_level)
        self.tasks.install(self.lowlevel)
        adapter_ref = weakref.ref(self)
        server.subscribe(_weak_listener(adapter_ref))
        server.prompts.subscribe(_weak_listener(adapter_ref, "prompts"))
        server.resources.subscribe(_weak_listener(adapter_ref, "resources"))
        server.subscribe_updates(_weak_update_listener(adapter_ref))

    # -- requests -----------------------------------------------------------------------------

    def request_context(self, ctx: ServerRequestContext[Any]) -> Context:
        """The `Context` of one request to this adapter's server."""
        return request_context(ctx, self.server, self._levels)

    def _input_schema(self, name: str) -> Any:
        """The input schema of the tool `name` (a catalog lookup: the SDK's `Mcp-Param` header
        check on 2026-era HTTP calls would otherwise run the whole `tools/list` handler).

        A tool behind `Authorize` is checked for the callers it admits (the caller the HTTP edge
        verified for this request); to anyone else it answers like an unknown one (`None`: no
        header check, so the header answer does not reveal that the tool exists).
        """
        entry = self.server.catalog.entries.get(name)
        if entry is None:
            return None
        tool = entry.tool
        if tool.access is not None and not tool.access.allows(verified_caller()):
            return None
        return tool.input_schema

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> dict[str, Any]:
        # The result goes out as wire dicts: the SDK validates and dumps a result once anyway,
        # and building then dumping `mt.Tool` models first costs ~30 µs a tool.
        catalog, cursor, size = self.server.catalog, params.cursor if params else None, self.server.page_size
        if catalog.list_middleware:
            listed = [wire_tool(tool) for tool in await catalog.list_tools(self.request_context(ctx))]
            items, next_cursor = page(listed, cursor, size)
        else:
            key, visible = catalog.view("tools", catalog.tools, caller(ctx) if catalog.rules() else None)
            items, next_cursor = cached_page(catalog.cache, f"mcp.{key}", wire_tool, visible, cursor, size)
        result = {**_LIST_TOOLS_DEFAULTS, "tools": items}
        if next_cursor:
            result["nextCursor"] = next_cursor
        return result

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams
    ) -> mt.InputRequiredResult | dict[str, Any]:
        observed = self.observer.start(self.server.catalog, params.name) if self.observer is not None else None
        failed = observed.failed if observed is not None else None
        watch = observed.task_work if observed is not None else None

        async def attempt(context: Context, failed: Failed | None = failed) -> dict[str, Any]:
            try:
                result = await self.server.catalog.call(params.name, params.arguments, context, failed=failed)
                return wire_result(result)
            except (UnknownTool, MissingCapability) as error:
                if failed is not None:
                    failed(error)
                raise protocol_error(error) from None

        async def as_task(context: Context) -> dict[str, Any]:
            """The call as a task's work: one whose upstream was lost on the way fails the task
            (`failed`, with the message the plain call's `isError` result carries)."""
            lost: list[BaseException] = []

            def noted(error: BaseException) -> None:
                if failed is not None:
                    failed(error)
                if isinstance(error, UpstreamError) and error.code is None:
                    lost.append(error)

            answer = await attempt(context, noted)
            if lost and answer.get("isError"):
                raise MCPError(mt.INTERNAL_ERROR, answer["content"][0]["text"])
            return answer

        async def attempt_or_task(context: Context) -> dict[str, Any]:
            task = await self.tasks.offer(ctx, params, context, as_task, watch)
            return task if task is not None else await attempt(context)

        context = self.request_context(ctx)
        progress = context.progress_sink  # (a `Progress` layer swaps the context's in place)
        run = attempt_or_task if self.tasks.may_offer(params.name) else attempt
        try:
            if observed is None:
                return await input_required.with_input(ctx, params, context, run)
            observed.serves(context)
            with observed:  # a call answered with a task is observed until its work ends
                answer = await input_required.with_input(ctx, params, context, run)
                if isinstance(answer, dict) and answer.get("resultType") == "task":
                    observed.handed_out()
                else:
                    is_error = isinstance(answer, dict) and answer.get("isError") is True
                    observed.answered(is_error, isinstance(answer, mt.InputRequiredResult))
                return answer
        finally:
            if isinstance(progress, RequestProgress):  # a call a `Timeout` abandoned reports no more
                progress.close()

    async def _set_level(self, ctx: ServerRequestContext[Any], params: mt.SetLevelRequestParams) -> mt.EmptyResult:
        connection = connection_of(ctx.session)
        if connection is not None:
            self._levels.set(connection, params.level)
        return mt.EmptyResult()

    # -- list_changed ---------------------------------------------------------------------------

    def _every_request(self, ctx: ServerRequestContext[Any], call_next: Any) -> Coroutine[Any, Any, Any]:
        """The first step of every request: note a handshake-era connection (`list_changed` goes
        to it), then run the rest under `guard` (with the request-state boundary for a method that
        may answer `input_required`). A plain function handing back `guard`'s awaitable: one SDK
        middleware layer for all of it (a layer costs ~3 µs a request). While tracing, it first
        keeps the SDK's span name and attributes bounded (`span_names`)."""
        observer = self.observer
        if observer is not None and observer.tracing:
            bound_span(self.lowlevel, ctx.method, ctx.params, ctx.request_id)
        connection = connection_of(ctx.session)
        if connection is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            key = id(connection)
            if key not in self._connections:
                self._connections[key] = connection
                connection.exit_stack.callback(self._connections.pop, key, None)
        if ctx.method in INPUT_REQUIRED_METHODS:
            return guard(ctx, call_next, self._request_state)
        return guard(ctx, call_next)

    @asynccontextmanager
    async def _lifespan(self, _: Any) -> AsyncIterator[dict[str, Any]]:
        self._loop_thread = threading.get_ident()
        self._token = anyio.lowlevel.current_token()
        self.observer = CallObserver.detect()
        async with self.server.lifespan(), self.tasks.running(), anyio.create_task_group() as tasks:
            tasks.start_soon(self._notifier)
            try:
                yield {}
            finally:
                tasks.cancel_scope.cancel()

    async def serve_connection(self, read: Any, write: Any) -> None:
        """Serve one client connection over `read`/`write` (either era) inside a lifespan that is
        already running (an HTTP app's), where `lowlevel.run` would enter it again."""
        options = self.lowlevel.create_initialization_options()
        await serve_dual_era_loop(self.lowlevel, read, write, lifespan_state={}, init_options=options)

    def resource_updated(self, uri: str) -> None:
        """Tell subscribers that `uri` changed (nobody to tell while not serving)."""
        if self._notifiers:
            self._updated.append(uri)
            self.on_change("updated")

    def on_change(self, kind: str = "tools") -> None:
        """Tell connected clients that the `kind` list (or, for `"updated"`, a resource) changed."""
        if not self._notifiers:  # not serving: nobody to tell
            return
        if self._loop_thread == threading.get_ident():
            self._wake(kind)
        else:
            anyio.from_thread.run_sync(self._wake, kind, token=self._token)

    def _wake(self, kind: str = "tools") -> None:
        self._pending.add(kind)
        for event in list(self._wakeups):
            event.set()

    async def _notifier(self) -> None:
        self._notifiers += 1
        try:
            while True:
                await self._next_changes()
        finally:
            self._notifiers -= 1

    async def _next_changes(self) -> None:
        """Wait for changes (unless some arrived while the last ones were being sent), then send them."""
        if not self._pending:
            event = anyio.Event()
            self._wakeups.add(event)
            try:
                await event.wait()
            finally:
                self._wakeups.discard(event)
        kinds, self._pending = self._pending, set()
        if "tools" in kinds:
            await self.notify_changed()
        if "prompts" in kinds:
            await self.notify_list_changed(PromptsListChanged(), "send_prompt_list_changed")
        if "resources" in kinds:
            await self.notify_list_changed(ResourcesListChanged(), "send_resource_list_changed")
        if "updated" in kinds:
            uris, self._updated = self._updated, []
            for uri in dict.fromkeys(uris):
                await self.updates.deliver(uri)

    async def notify_changed(self) -> None:
        """Tell every connected client that the tool list changed."""
        await self.notify_list_changed(ToolsListChanged(), "send_tool_list_changed")

    async def notify_list_changed(self, event: Any, send: str) -> None:
        """Publish `event` to 2026-era listeners and call `connection.<send>()` on handshake-era ones."""
        await self.bus.publish(event)
        for key, connection in list(self._connections.items()):
            try:
                await getattr(connection, send)()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                self._connections.pop(key, None)
            except Exception:
                logger.debug("could not send list_changed", exc_info=True)
                self._connections.pop(key, None)
