"""`Server`: a registry of tools, transforms, middleware and mounts, compiled into a catalog.

Example:
    >>> server = Server("demo")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> [tool.name for tool in server.catalog.tools]
    ['add']
"""

from __future__ import annotations

import gc
import logging
import re
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from toolweave.core.context import Context, enter_context, exit_context
from toolweave.core.decorator import as_tool, make_decorator
from toolweave.core.errors import DuplicateError, UnknownTool
from toolweave.core.masking import ErrorPolicy
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool, Transform
from toolweave.middleware.base import Middleware
from toolweave.middleware.selector import Selector
from toolweave.server.catalog import Catalog, Entry, Listener
from toolweave.server.completion import Completer
from toolweave.server.listeners import Listeners
from toolweave.server.prompts import PromptRegistry
from toolweave.server.prompts_and_resources import PromptsAndResources
from toolweave.server.resources import ResourceRegistry

if TYPE_CHECKING:
    from anyio.abc import TaskGroup
    from starlette.applications import Starlette

    from toolweave.server.lifespan import Running
    from toolweave.server.mount import Mount

logger = logging.getLogger("toolweave.server")
OnDuplicate = Literal["error", "warn", "replace", "ignore"]
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def check_name(name: str, what: str = "tool") -> str:
    """`name` if it is a valid exposed name (`[A-Za-z0-9_.-]{1,128}`), else `ValueError`."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"{what} name {name!r} is not valid: use 1 to 128 characters from A-Z, a-z, 0-9, '_', '.', '-'"
        )
    return name


class Server(PromptsAndResources):
    """A composable MCP server (tools here; prompts and resources from `PromptsAndResources`).

    Args:
        name: The server name announced to clients.
        instructions: Guidance for the model, sent when a client connects.
        version: The server version announced to clients.
        mask_error_details: Hide internal error details from clients (default on).
        on_duplicate: What adding a second tool with a taken name does: `"error"`, `"warn"`
            (log and replace), `"replace"` or `"ignore"` (keep the first).
        extra_args: Unknown arguments in a call are `"reject"`ed (default) or `"ignore"`d.
        middleware: Middleware for every tool, outermost first.
        page_size: Items per page of `tools/list` (and other lists); `None` sends one page.
    """

    def __init__(
        self,
        name: str = "toolweave",
        *,
        instructions: str | None = None,
        version: str | None = None,
        mask_error_details: bool = True,
        on_duplicate: OnDuplicate = "error",
        extra_args: Literal["reject", "ignore"] = "reject",
        middleware: Iterable[Middleware] = (),
        page_size: int | None = 1000,
    ) -> None:
        if on_duplicate not in ("error", "warn", "replace", "ignore"):
            raise ValueError(f"on_duplicate must be 'error', 'warn', 'replace' or 'ignore', not {on_duplicate!r}")
        if extra_args not in ("reject", "ignore"):
            raise ValueError(f"extra_args must be 'reject' or 'ignore', not {extra_args!r}")
        self.name = name
        self.instructions = instructions
        self.version = version
        self.on_duplicate: OnDuplicate = on_duplicate
        self.extra_args = extra_args
        self.page_size = page_size
        self.error_policy = ErrorPolicy(mask=mask_error_details)
        self._tools: dict[str, Tool] = {}
        self._transforms: list[tuple[Transform, Selector | None]] = []
        self._middleware: list[Middleware] = list(middleware)
        self._mounts: list[Mount] = []
        self._hidden_names: set[str] = set()
        self._hidden_tags: set[str] = set()
        self._shown_names: set[str] = set()
        self._catalog: Catalog | None = None
        self._listeners = Listeners()
        self.prompts = PromptRegistry(self)
        self.resources = ResourceRegistry(self)
        self._imported_from: list[Server] = []
        self._running: Running | None = None
        self._entered: list[AbstractAsyncContextManager[Server]] = []
        self.completer: Completer | None = None
        self._update_listeners = Listeners()

    def __repr__(self) -> str:
        return f"Server({self.name!r})"

    # -- registering tools -------------------------------------------------------------------

    def tool(self, fn: Any = None, /, **options: Any) -> Any:
        """Register a function as a tool: `@server.tool`, `@server.tool()`, `@server.tool(name=...)`.

        Returns the original function, still callable as plain Python; its `Tool` is `fn.tool`.
        """
        return make_decorator(self._register, fn, options)

    def add_tool(self, fn_or_tool: Callable[..., Any] | Tool, **options: Any) -> Tool:
        """Register a function (with `Tool.from_function` options) or a ready `Tool`."""
        made = as_tool(fn_or_tool, **options)
        self._register(made)
        return made

    def _register(self, tool: Tool) -> None:
        check_name(tool.name)
        if tool.name in self._tools:
            if self.on_duplicate == "error":
                raise DuplicateError(f"server {self.name!r} already has a tool named {tool.name!r}")
            if self.on_duplicate == "ignore":
                return
            if self.on_duplicate == "warn":
                logger.warning("server %r: tool %r was replaced by a new one", self.name, tool.name)
        self._tools[tool.name] = tool
        self.changed()

    def remove_tool(self, name: str) -> Tool:
        """Unregister a local tool; `UnknownTool` if there is none by that name."""
        try:
            removed = self._tools.pop(name)
        except KeyError:
            raise UnknownTool(name) from None
        self.changed()
        return removed

    @property
    def local_tools(self) -> dict[str, Tool]:
        """The tools registered on this server itself (before transforms), by name."""
        return dict(self._tools)

    # -- visibility ----------------------------------------------------------------------------

    def disable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Hide tools, prompts and resources by name (resources also by URI) or tag: unlisted, unusable."""
        self._hidden_names.update(names)
        self._shown_names.difference_update(names)
        self._hidden_tags.update(tags)
        self.changed()
        self.prompts.changed()
        self.resources.changed()

    def enable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Undo `disable`, and show tools, prompts and resources created with `enabled=False`."""
        self._hidden_names.difference_update(names)
        self._shown_names.update(names)
        self._hidden_tags.difference_update(tags)
        self.changed()
        self.prompts.changed()
        self.resources.changed()

    def _visible(self, tool: Tool) -> bool:
        if tool.name in self._shown_names:
            return True
        return tool.enabled and tool.name not in self._hidden_names and not (tool.tags & self._hidden_tags)

    # -- transforms, middleware, mounts ----------------------------------------------------------

    def add_transform(
        self, transform: Transform, *, tools: Selector | str | Iterable[str] | None = None, tags: Iterable[str] = ()
    ) -> None:
        """Apply `transform` to every matching tool (local, mounted or remote) at compile time."""
        selector = Selector.coerce(tools)
        if tags:
            selector = Selector(selector.names if selector else None, tags=tags)
        self._transforms.append((transform, selector))
        self.changed()

    def add_middleware(self, *middleware: Middleware) -> None:
        """Append middleware; the first added is the outermost."""
        self._middleware.extend(middleware)
        self.changed()

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """This server's middleware, outermost first."""
        return tuple(self._middleware)

    def mount(self, child: Server, prefix: str | None = None, *, separator: str = "_") -> Mount:
        """Expose `child`'s tools here, live, named `{prefix}{separator}{name}` (unchanged if no prefix).

        `child` may be a `Server` or a `RemoteServer`. Raises `ValueError` if the mount would make
        a cycle, and `DuplicateError` (under `on_duplicate="error"`) if an exposed name clashes.

        Example:
            gateway.mount(billing, prefix="billing")
            gateway.mount(RemoteServer.stdio("gh-mcp"), prefix="gh")
        """
        from toolweave.server.lifespan import start_child
        from toolweave.server.mount import Mount
        from toolweave.server.remote import RemoteServer

        mounted = Mount(child, prefix=prefix, separator=separator)
        self._refuse_cycle(child)
        if prefix is not None and isinstance(child, RemoteServer):
            child._name_after_mount(prefix)
        self._mounts.append(mounted)
        self.changed()
        try:
            self.catalog  # noqa: B018 - report clashes now, not at the first request
        except Exception:
            self._mounts.remove(mounted)
            self.changed()
            raise
        mounted.subscribe(self.changed)
        self.prompts.follow(mounted)
        self.resources.follow(mounted)
        if self._running is not None:
            start_child(self._running, child)
        return mounted

    def import_tools(self, child: Server, prefix: str | None = None, *, separator: str = "_") -> list[Tool]:
        """Copy `child`'s current tools here once, named like `mount` would; later changes are not followed.

        The copies are local tools of this server (`on_duplicate` applies). A remote child is
        still started and stopped with this server, since its copied tools call it.
        """
        from toolweave.server.mount import import_tools

        return import_tools(self, child, prefix, separator)

    def _refuse_cycle(self, child: Server) -> None:
        from toolweave.server.mount import refuse_cycle

        refuse_cycle(self, child)

    @property
    def mounts(self) -> tuple[Mount, ...]:
        """The live mounts of this server, in the order they were added."""
        return tuple(self._mounts)

    # -- change tracking -----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener()` whenever the exposed catalog changes; returns an unsubscribe function."""
        return self._listeners.add(listener)

    def changed(self) -> None:
        """Drop the compiled catalog and tell listeners (clients get `list_changed`)."""
        self._catalog = None
        self.prompts.invalidate()
        self.resources.invalidate()
        self._listeners.notify()

    def resource_updated(self, uri: str) -> None:
        """Tell clients subscribed to `uri` that its content changed (`notifications/resources/updated`)."""
        self._update_listeners.notify(uri)

    def subscribe_updates(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener(uri)` on every `resource_updated(uri)`; returns an unsubscribe function."""
        return self._update_listeners.add(listener)

    # -- completion ------------------------------------------------------------------------------

    def completion(self, fn: Completer) -> Completer:
        """Register the function suggesting prompt-argument and template-parameter values.

        It gets a `CompletionRequest` and returns a list of strings (sync or async); see
        `toolweave.server.completion`. Returns `fn` unchanged.
        """
        self.completer = fn
        return fn

    # -- the compiled catalog ------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The compiled catalog, built now if something changed since the last build."""
        catalog = self._catalog
        if catalog is None:
            catalog = self._catalog = self._compile()
        return catalog

    def _candidates(self) -> list[tuple[Tool, str]]:
        found = [(tool, f"local tool {tool.name!r}") for tool in self._tools.values()]
        for mounted in self._mounts:
            found.extend(mounted.exposed_tools())
        return found

    def _held_children(self) -> list[Server]:
        """The servers started and stopped with this one: mounted and imported-from."""
        children = [mounted.child for mounted in self._mounts]
        return children + [child for child in self._imported_from if child not in children]

    def _transformed(self, tool: Tool) -> Tool:
        for transform, selector in self._transforms:
            if selector is None or selector.matches(tool):
                tool = transform.apply(tool)
        return tool

    def _compile(self) -> Catalog:
        # Compiling thousands of tools allocates only objects that live as long as the catalog:
        # pausing the cyclic collector meanwhile spares it repeated full passes over the heap.
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._compile_now()
        finally:
            if paused:
                gc.enable()

    def _compile_now(self) -> Catalog:
        entries: dict[str, Entry] = {}
        middleware = tuple(self._middleware)
        for candidate, origin in self._candidates():
            tool = self._transformed(candidate)
            if not self._visible(tool):
                continue
            try:
                if tool is not candidate or self._tools.get(tool.name) is not tool:  # (local: checked when added)
                    check_name(tool.name)
            except ValueError as error:
                raise ValueError(f"server {self.name!r}: {error} (from {origin})") from None
            if tool.name in entries and not self._keep_new(tool.name, entries[tool.name].origin, origin):
                continue
            entries[tool.name] = Entry.build(tool, origin, middleware, self.error_policy)
        return Catalog(
            entries=entries,
            tools=tuple(entry.tool for entry in entries.values()),
            reject_extra=self.extra_args == "reject",
            list_middleware=tuple(layer for layer in middleware if layer.lists_tools()),
        )

    def _keep_new(self, name: str, first: str, second: str) -> bool:
        message = f"server {self.name!r}: tool name {name!r} is claimed twice: by {first} and by {second}"
        if self.on_duplicate == "error":
            raise DuplicateError(message)
        if self.on_duplicate == "warn":
            logger.warning("%s; the second one wins", message)
        return self.on_duplicate in ("warn", "replace")

    # -- lifespan ------------------------------------------------------------------------------

    def lifespan(self) -> AbstractAsyncContextManager[Server]:
        """Start what this server holds open (remote sessions, mounted servers') until the block ends.

        Serving enters it for you; for in-process use, `async with server: ...` does the same.
        """
        from toolweave.server.lifespan import lifespan

        return lifespan(self)

    async def __aenter__(self) -> Server:
        entered = self.lifespan()
        await entered.__aenter__()
        self._entered.append(entered)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._entered.pop().__aexit__(exc_type, exc, tb)

    @property
    def running(self) -> bool:
        """Whether the lifespan is active."""
        return self._running is not None

    async def _open(self, tasks: TaskGroup) -> None:
        """Open this server's own long-lived resources in `tasks` (a `RemoteServer` connects)."""

    # -- in-process use ------------------------------------------------------------------------

    async def list_tools(self, ctx: Context | None = None) -> list[Tool]:
        """The tools a client would see, in order."""
        catalog = self.catalog
        if not catalog.list_middleware:
            return list(catalog.tools)
        return await catalog.list_tools(ctx or Context(server=self))

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, ctx: Context | None = None
    ) -> ToolResult:
        """Call a tool in-process, through the same catalog a client uses.

        Raises:
            UnknownTool: when no enabled tool has that name. Every other failure is returned
                as an `isError` result, exactly as a client would get it.
        """
        ctx = ctx or Context(server=self)
        token = enter_context(ctx)
        try:
            return await self.catalog.call(name, arguments, ctx)
        finally:
            exit_context(token)

    # -- serving -------------------------------------------------------------------------------

    def as_mcp(self) -> Any:
        """This server as the `mcp` SDK's low-level `Server` (e.g. for `mcp.Client(server.as_mcp())`)."""
        from toolweave.mcp.adapter import mcp_server

        return mcp_server(self)

    def run(self, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
        """Serve over stdio (default) or HTTP (`host="127.0.0.1"`, `port=8000`, `path="/mcp"`)."""
        from toolweave.mcp.serve import run

        run(self, transport, **options)

    async def run_async(self, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
        """`run`, inside an already running event loop."""
        from toolweave.mcp.serve import run_async

        await run_async(self, transport, **options)

    def http_app(self, *, path: str = "/mcp", **options: Any) -> Starlette:
        """An ASGI app serving this server over streamable HTTP at `path`.

        Options (see `toolweave.mcp.serve.http_app`): `stateless`, `json_response`, `host`, and
        `authenticate` — `(headers) -> AuthInfo | None`, which becomes `ctx.auth`.
        """
        from toolweave.mcp.serve import http_app

        return http_app(self, path=path, **options)

