"""`Server`: tools, prompts and resources, transforms, middleware and mounts, compiled into catalogs.

A thin facade over one generic pipeline: `server.tools`, `server.prompts` and
`server.resources` are the registries of each kind (see `toolweave.server.registry`); the
server holds what they share — the rules (`on_duplicate`, `extra_args`, error masking,
`Visibility`), the transforms (`transform_set`), the middleware, the mounts (`mounting`), the
link to its replicas (`replicas`) and the lifespan (`lifespan`) — and offers the in-process
counterparts of every wire call.

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

from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import anyio
from anyio.abc import TaskGroup

from toolweave.core.context import Context, enter_context, exit_context, local_context
from toolweave.core.decorator import as_tool, make_decorator
from toolweave.core.errors import UnknownPrompt, UnknownResource, UnknownTool
from toolweave.core.masking import ErrorPolicy
from toolweave.core.message import PromptResult
from toolweave.core.names import check_text, name_set
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool, Transform
from toolweave.middleware.base import Middleware, as_middleware
from toolweave.middleware.selector import Selector
from toolweave.server.arguments import as_arguments, described, refuse_odd_names
from toolweave.server.catalog import Listener
from toolweave.server.completion import Completer, Completion, CompletionRequest
from toolweave.server.lifespan import Lifespan
from toolweave.server.mount import Mount
from toolweave.server.mounting import Mounts
from toolweave.server.prompts import PromptRegistry
from toolweave.server.registry import OnDuplicate, Registry
from toolweave.server.replicas import Replicas
from toolweave.server.resources import ResourceRegistry
from toolweave.server.routing import Subscriptions, complete_at_owner
from toolweave.server.tools import ToolCatalog, ToolRegistry
from toolweave.server.transform_set import TransformSet
from toolweave.server.visibility import Visibility
from toolweave.store import Store, open_store
from toolweave.transforms.catalog import CatalogTransform

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.applications import Starlette


class Server:
    """A composable MCP server.

    Args:
        name: The server name announced to clients.
        instructions: Guidance for the model, sent when a client connects.
        version: The server version announced to clients.
        mask_error_details: Hide internal error details from clients (default on).
        on_duplicate: What adding a second component with a taken name does: `"error"`,
            `"warn"` (log and replace), `"replace"` or `"ignore"` (keep the first).
        extra_args: Unknown arguments in a call are `"reject"`ed (default) or `"ignore"`d.
        middleware: Middleware for every tool (prompt, resource), outermost first.
        page_size: Items per page of `tools/list` (and other lists), at least 1; `None` sends one page.
        store: Where stateful middleware keeps its state: `None` (this process, the default), a
            `"redis://host:6379/0"` URL or a `toolweave.store.Store` shared by every replica.
    """

    is_remote = False
    """Whether this server's components live in a remote upstream (`RemoteServer`)."""

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
        store: Store | str | None = None,
    ) -> None:
        if on_duplicate not in ("error", "warn", "replace", "ignore"):
            raise ValueError(f"on_duplicate must be 'error', 'warn', 'replace' or 'ignore', not {on_duplicate!r}")
        if extra_args not in ("reject", "ignore"):
            raise ValueError(f"extra_args must be 'reject' or 'ignore', not {extra_args!r}")
        if not isinstance(name, str):  # (each would be taken here, and then fail every client's handshake)
            raise TypeError(f"a server name must be a string, not {name!r}")
        check_text(instructions, "instructions", "server", name)
        check_text(version, "version", "server", name)
        if page_size is not None and (type(page_size) is not int or page_size < 1):  # (0 listed nothing)
            raise ValueError(f"server {name!r}: page_size must be a whole number above 0 or None, not {page_size!r}")
        self.name = name
        self.instructions = instructions
        self.version = version
        self.on_duplicate: OnDuplicate = on_duplicate
        self.extra_args = extra_args
        self.page_size = page_size
        self.error_policy = ErrorPolicy(mask=mask_error_details)
        self.visibility = Visibility()
        self.completer: Completer | None = None
        self.tools = ToolRegistry(self)
        self.prompts = PromptRegistry(self)
        self.resources = ResourceRegistry(self)
        self._transforms = TransformSet()
        self.store = open_store(store)
        self.replicas = Replicas(self.store, name)
        """The scope of this server's state in a shared store, and the channel its changes travel on."""
        self._middleware: list[Middleware] = []
        self._bind(middleware)
        self._life = Lifespan(self, self._hold_open)
        self._mounts = Mounts(self, self._life, self._all_changed)
        self._subscriptions = Subscriptions(self)
        self._entered: dict[int, list[AbstractAsyncContextManager[Server]]] = {}
        """The open `async with server:` entries of each task (by anyio task id), innermost last."""

    def __repr__(self) -> str:
        return f"Server({self.name!r})"

    def registry(self, kind: str) -> Registry[Any, Any]:
        """The registry of `kind`: `"tool"`, `"prompt"` or `"resource"`."""
        registries: dict[str, Registry[Any, Any]] = {
            "tool": self.tools,
            "prompt": self.prompts,
            "resource": self.resources,
        }
        return registries[kind]

    # -- tools ---------------------------------------------------------------------------------

    def tool(self, fn: Any = None, /, **options: Any) -> Any:
        """Register a function as a tool: `@server.tool`, `@server.tool()`, `@server.tool(name=...)`.

        Returns the original function, still callable as plain Python; its `Tool` is `fn.tool`.
        """
        return make_decorator(self.tools.add, fn, options)

    def add_tool(self, fn_or_tool: Callable[..., Any] | Tool, **options: Any) -> Tool:
        """Register a function (with `Tool.from_function` options) or a ready `Tool`.

        A burst of 1,000 registrations or more calls `gc.freeze()` (process-wide) so the garbage
        collector stops rescanning the catalog; see `toolweave.server.heap`.
        """
        return self.tools.add(as_tool(fn_or_tool, **options))

    def remove_tool(self, name: str) -> Tool:
        """Unregister a local tool; `UnknownTool` if there is none by that name."""
        return self.tools.remove(name)

    @property
    def local_tools(self) -> dict[str, Tool]:
        """The tools registered on this server itself (before transforms), by name."""
        return self.tools.local

    # -- prompts and resources ---------------------------------------------------------------------

    def prompt(self, fn: Any = None, /, **options: Any) -> Any:
        """Register a function as a prompt: `@server.prompt`, `@server.prompt()`, `@server.prompt(name=...)`.

        Options are those of `Prompt.from_function`. Returns the original function, still
        callable; `fn.prompt` is the `Prompt`, and `fn.enable()` / `fn.disable()` show or hide it.
        """
        return self.prompts.decorator(fn, options)

    def add_prompt(self, fn_or_prompt: Callable[..., Any] | Prompt, **options: Any) -> Prompt:
        """Register a function (with `Prompt.from_function` options) or a ready `Prompt`."""
        return self.prompts.add_from(fn_or_prompt, options)

    def remove_prompt(self, name: str) -> Prompt:
        """Unregister a local prompt; `UnknownPrompt` if there is none by that name."""
        return self.prompts.remove(name)

    def resource(self, uri: str, /, **options: Any) -> Callable[[Callable[..., Any]], Any]:
        """Register a function as a resource (`"resource://cities"`) or template (`"resource://{city}/weather"`).

        Options are those of `Resource.from_function`. Returns the original function, still
        callable; `fn.resource` is the `Resource`.

        Raises:
            TypeError: when the template's parameters and the function's parameters differ.
        """
        return self.resources.decorator(uri, options)

    def add_resource(
        self, fn_or_resource: Callable[..., Any] | Resource, uri: str | None = None, **options: Any
    ) -> Resource:
        """Register a function (with its `uri` and `Resource.from_function` options) or a ready `Resource`."""
        return self.resources.add_from(fn_or_resource, uri, options)

    def remove_resource(self, uri: str) -> Resource:
        """Unregister a local resource or template by URI; `UnknownResource` if there is none."""
        return self.resources.remove(uri)

    # -- visibility, transforms, middleware ---------------------------------------------------------

    def disable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Hide tools, prompts and resources by name (resources also by URI) or tag: unlisted, unusable.

        Raises:
            TypeError: `tags` is a single string (write `tags=["beta"]`), not a set of its characters.
        """
        tags = name_set(tags, "tags", "server", self.name)
        self.visibility.disable(names, tags)
        self._all_changed()
        self.replicas.announce("disable", names, tags)

    def enable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Undo `disable`, and show tools, prompts and resources created with `enabled=False`.

        Raises:
            TypeError: `tags` is a single string (write `tags=["beta"]`), not a set of its characters.
        """
        tags = name_set(tags, "tags", "server", self.name)
        self.visibility.enable(names, tags)
        self._all_changed()
        self.replicas.announce("enable", names, tags)

    def add_transform(
        self,
        transform: Transform,
        *,
        tools: Selector | str | Iterable[str] | None = None,
        tags: Iterable[str] = (),
        prompts: Selector | str | Iterable[str] | None = None,
        resources: Selector | str | Iterable[str] | None = None,
    ) -> None:
        """Apply `transform` to every matching tool (local, mounted or remote) at compile time.

        A `CatalogTransform` (`SearchTools`, `PromptsAsTools`, ...) reshapes the whole compiled
        tool catalog instead, after the tool transforms; it takes no selectors.

        `prompts=` and `resources=` (name or URI globs) apply a transform made for every kind of
        component (`Authorize`) to prompts and resources too; given either, tools are chosen only
        by `tools=` / `tags=`. `tags` narrows every kind chosen.

        The transform is applied here to the components it selects now (the result is kept for
        the compile): one it does not fit is refused at once, and so is a local one added later
        (at its `add_tool`). A mounted or remote tool appearing later that it does not fit is
        left out when the catalog compiles, with an error logged; the other tools are served.

        Raises:
            TransformError: the transform does not fit a component it selects (naming it and the
                argument); the server is left as it was.
            TypeError: `tags` is a single string (write `tags=["slow"]`).
        """
        tags = name_set(tags, "tags", "server", self.name)
        self._transforms.add(transform, self.registry, tools=tools, tags=tags, prompts=prompts, resources=resources)
        if isinstance(transform, CatalogTransform):
            self.changed()
        else:
            self._all_changed()

    @property
    def transforms(self) -> tuple[tuple[Transform, Selector | None], ...]:
        """The transforms added with `add_transform` for tools, with their selectors, in order."""
        return tuple(self._transforms.kinds["tool"])

    @property
    def catalog_transforms(self) -> tuple[CatalogTransform, ...]:
        """The catalog transforms added with `add_transform`, in order."""
        return tuple(self._transforms.catalog)

    def transforms_for(self, kind: str) -> tuple[tuple[Any, Selector | None], ...]:
        """The transforms added with `add_transform` for `kind` (`"tool"`, `"prompt"`, `"resource"`)."""
        return tuple(self._transforms.kinds[kind])

    def add_middleware(self, *middleware: Middleware, outermost: bool = False) -> None:
        """Append middleware (the first added is the outermost); `outermost=True` puts it before all."""
        count = len(self._middleware)
        self._bind(middleware)
        if outermost:
            self._middleware[:] = self._middleware[count:] + self._middleware[:count]
        self.changed()

    def _bind(self, middleware: Iterable[Middleware]) -> None:
        """Append middleware, handing each its state from this server's store; `TypeError`
        (and nothing appended) if one of them is not a `Middleware` instance."""
        if isinstance(middleware, Middleware):
            raise TypeError(f"middleware= takes a list of Middleware, not one {middleware.name}: wrap it in [...]")
        layers = [as_middleware(layer) for layer in middleware]
        for layer in layers:
            layer.use_store(self.store, self.replicas.layer_scope(len(self._middleware)))
            self._middleware.append(layer)

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """This server's middleware, outermost first."""
        return tuple(self._middleware)

    # -- mounts ------------------------------------------------------------------------------------

    def mount(self, child: Server, prefix: str | None = None, *, separator: str = "_") -> Mount[Server]:
        """Expose `child`'s tools, prompts and resources here, live, renamed by `prefix`.

        `child` may be a `Server` or a `RemoteServer`. Raises `ValueError` if the mount would make
        a cycle, and `DuplicateError` (under `on_duplicate="error"`) if an exposed name clashes.

        Example:
            >>> import anyio
            >>> billing = Server("billing")
            >>> @billing.tool
            ... def refund(order: str) -> str:
            ...     return f"refunded {order}"
            >>> gateway = Server("gateway")
            >>> _ = gateway.mount(billing, prefix="billing")
            >>> [tool.name for tool in anyio.run(gateway.list_tools)]
            ['billing_refund']
        """
        return self._mounts.mount(Mount(child, prefix=prefix, separator=separator))

    def import_tools(self, child: Server, prefix: str | None = None, *, separator: str = "_") -> list[Tool]:
        """Copy `child`'s current tools here once, named like `mount` would; later changes are not followed.

        The copies are local tools of this server (`on_duplicate` applies). A remote child is
        still started and stopped with this server, since its copied tools call it.
        """
        return self._mounts.import_tools(child, prefix, separator)

    def unmount(self, mounted: Mount[Server]) -> None:
        """Remove a mount: its components leave this server's catalogs (clients get `list_changed`)
        and the child is no longer started with this server (stopped now if this server started it,
        unless another running server holds it: that one starts it again). Calls already running on
        the child's components finish.

        Raises:
            ValueError: `mounted` is not a mount of this server (unmounted already, or another's).
        """
        self._mounts.unmount(mounted)

    def stand_in_for(self, child: Server) -> None:
        """Be `child` towards the other replicas (a `LiveServer` is, for each build of its file), from
        before `child` starts: mounting it here adds no level to the names of its shared state (they
        stay those of `child` served alone), and this server, not `child`, announces and applies the
        changes on the channel."""
        child.replicas.stand_in()

    @property
    def mounts(self) -> tuple[Mount[Server], ...]:
        """The live mounts of this server, in the order they were added."""
        return tuple(self._mounts.live)

    def children(self) -> list[Server]:
        """The servers started and stopped with this one: mounted and imported-from."""
        return self._mounts.children()

    def held_children(self) -> list[Server]:
        """The children this server's lifespan starts when it starts (all of them; a hook)."""
        return self.children()

    def named_by_mount(self, prefix: str) -> None:
        """Called when this server is mounted under `prefix` (a `RemoteServer` takes it as its name)."""

    # -- change tracking -----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener()` whenever the exposed tools change; returns an unsubscribe function."""
        return self.tools.subscribe(listener)

    def changed(self) -> None:
        """Recompile on next use (clients get `list_changed` for tools); prompts and resources too."""
        self.tools.changed()
        self.prompts.invalidate()
        self.resources.invalidate()

    def _all_changed(self) -> None:
        self.tools.changed()
        self.prompts.changed()
        self.resources.changed()

    def broadcast_changed(self) -> None:
        """Recompile here and on every replica sharing this server's store (all clients get `list_changed`)."""
        self._all_changed()
        self.replicas.announce("changed")

    def resource_updated(self, uri: str) -> None:
        """Tell clients subscribed to `uri` that its content changed (`notifications/resources/updated`).

        `uri` is as this server serves it: code of a mounted server tells that server
        (`child.resource_updated`), which passes the news on under the URI its parent exposes. A
        URI no resource or template of this server serves reaches no client: that is logged.
        """
        self.resources.updated(uri)

    def subscribe_updates(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener(uri)` on every `resource_updated(uri)`; returns an unsubscribe function."""
        return self.resources.subscribe_updates(listener)

    async def complete(self, request: CompletionRequest) -> Completion:
        """Suggested values for a prompt argument or template parameter (`completion/complete`).

        A mounted prompt or template is completed by the server it comes from (a remote one asks
        its upstream); this server's completer answers for its own, and for mounted ones whose
        owner suggests nothing.
        """
        return await complete_at_owner(self, request)

    async def subscribe_resource(self, uri: str) -> None:
        """A client wants `notifications/resources/updated` for `uri`: tell the server that owns
        it (a remote one subscribes at its upstream). Updates reach this server's
        `resource_updated` through the mounts either way."""
        await self._subscriptions.subscribe(uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        """No client wants updates for `uri` any more (the counterpart of `subscribe_resource`):
        the remote server the subscription reached is told, whatever this server serves now."""
        await self._subscriptions.unsubscribe(uri)

    def completion(self, fn: Completer) -> Completer:
        """Register the function suggesting prompt-argument and template-parameter values.

        It gets a `CompletionRequest` and returns a list of strings (sync or async); see
        `toolweave.server.completion`. Returns `fn` unchanged.
        """
        self.completer = fn
        return fn

    @property
    def catalog(self) -> ToolCatalog:
        """The compiled tool catalog, built now if something changed since the last build."""
        return self.tools.catalog

    # -- lifespan ------------------------------------------------------------------------------

    def lifespan(self) -> AbstractAsyncContextManager[Server]:
        """Start what this server holds open (remote sessions, mounted servers') until the block ends.

        Serving enters it for you; for in-process use, `async with server: ...` does the same.
        """
        return self._lifespan()

    @asynccontextmanager
    async def _lifespan(self) -> AsyncIterator[Server]:
        if self.store.shared and not self.running:
            await self.store.check()  # a store refusing the configuration stops the start, plainly
        async with self._life.enter():
            yield self

    async def __aenter__(self) -> Server:
        entered = self.lifespan()
        await entered.__aenter__()
        self._entered.setdefault(anyio.get_current_task().id, []).append(entered)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        # Each task leaves its own entry: tasks sharing a server may leave in any order.
        task = anyio.get_current_task().id
        entries = self._entered.get(task)
        if not entries:
            raise RuntimeError(f"{self!r} was not entered in this task: leave `async with` in the task that entered")
        entered = entries.pop()
        if not entries:
            del self._entered[task]
        return await entered.__aexit__(exc_type, exc, tb)

    @property
    def running(self) -> bool:
        """Whether the lifespan is active."""
        return self._life.running

    async def until_stopped(self) -> None:
        """Return once the lifespan running now has stopped (at once if it is not running)."""
        await self._life.until_stopped()

    async def _hold_open(self, tasks: TaskGroup) -> None:
        await self.replicas.follow(tasks, self.visibility, self._all_changed)
        await self.hold_open(tasks)

    async def hold_open(self, tasks: TaskGroup) -> None:
        """Open this server's own long-lived resources in `tasks` (a `RemoteServer` connects); a hook."""

    def remotes(self) -> list[Server]:
        """The remote servers this server is, mounts or imports from, at any depth, once each."""
        found: list[Server] = [self] if self.is_remote else []
        for child in self.children():
            found += [remote for remote in child.remotes() if all(remote is not seen for seen in found)]
        return found

    def down_remotes(self) -> list[str]:
        """The remote servers held here that have no session now, as `'name' (state: why)`."""
        return self._life.down_remotes()

    # -- in-process use ------------------------------------------------------------------------

    async def list_tools(self, ctx: Context | None = None) -> list[Tool]:
        """The tools a client would see (the caller of `ctx`; by default an anonymous one), in order;
        remote servers are connected first if the server is not running."""
        if self._life.needs_start():
            return await self._life.started_for(self.list_tools, ctx)
        return await self.catalog.list_tools(ctx or local_context(self))

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, ctx: Context | None = None
    ) -> ToolResult:
        """Call a tool in-process, through the same catalog a client uses.

        A server that is not running connects its remote servers for the call (see `lifespan`).

        Raises:
            UnknownTool: when no enabled tool has that name (naming the remote servers that are
                down, if any). Every other failure is returned as an `isError` result, exactly
                as a client would get it.
            TypeError: `arguments` is not a dict with `str` keys (or None), or `ctx` not a `Context`.
        """
        if self._life.needs_start():
            return await self._life.started_for(self.call_tool, name, arguments, ctx=ctx)
        if ctx is None:
            ctx = local_context(self)
        elif not isinstance(ctx, Context):
            raise TypeError(f"call_tool({name!r}): ctx must be a toolweave Context or None, not {described(ctx)}")
        if arguments is not None and not isinstance(arguments, dict):
            arguments = as_arguments(name, arguments)
        token = enter_context(ctx)
        try:
            return await self.tools.catalog.call(name, arguments, ctx)
        except UnknownTool as error:
            self._life.naming_down_remotes(error, name)
            raise
        except AttributeError:  # (a name that is not a str fails the name checks: looked for only then)
            refuse_odd_names(name, arguments)
            raise
        finally:
            exit_context(token)

    async def list_prompts(self, ctx: Context | None = None) -> list[Prompt]:
        """The prompts a client would see (the caller of `ctx`; by default an anonymous one), in order."""
        if self._life.needs_start():
            return await self._life.started_for(self.list_prompts, ctx)
        catalog = self.prompts.catalog
        return list(catalog.view("prompts", catalog.prompts, ctx.auth if ctx else None)[1])

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, *, ctx: Context | None = None
    ) -> PromptResult:
        """Render a prompt in-process (arguments as strings, as on the wire, or as values).

        Raises `UnknownPrompt` (naming the remote servers that are down, if any),
        `InvalidArguments`, or `ToolError` (internal errors masked).
        """
        if self._life.needs_start():
            return await self._life.started_for(self.get_prompt, name, arguments, ctx=ctx)
        ctx = ctx or local_context(self)
        token = enter_context(ctx)
        try:
            return await self.prompts.catalog.render(name, arguments, ctx)
        except UnknownPrompt as error:
            self._life.naming_down_remotes(error, name)
            raise
        finally:
            exit_context(token)

    async def list_resources(self, ctx: Context | None = None) -> list[Resource]:
        """The static resources a client would see (the caller of `ctx`; by default an anonymous one)."""
        if self._life.needs_start():
            return await self._life.started_for(self.list_resources, ctx)
        catalog = self.resources.catalog
        return list(catalog.view("resources", catalog.resources, ctx.auth if ctx else None)[1])

    async def list_resource_templates(self, ctx: Context | None = None) -> list[Resource]:
        """The resource templates a client would see (the caller of `ctx`; by default an anonymous one)."""
        if self._life.needs_start():
            return await self._life.started_for(self.list_resource_templates, ctx)
        catalog = self.resources.catalog
        return list(catalog.view("templates", catalog.resource_templates, ctx.auth if ctx else None)[1])

    async def read_resource(self, uri: str, *, ctx: Context | None = None) -> ResourceResult:
        """Read a resource in-process.

        Raises `UnknownResource` (naming the remote servers that are down, if any),
        `InvalidArguments` (a template parameter that does not convert), or `ToolError` (internal
        errors masked).
        """
        if self._life.needs_start():
            return await self._life.started_for(self.read_resource, uri, ctx=ctx)
        ctx = ctx or local_context(self)
        token = enter_context(ctx)
        try:
            return await self.resources.catalog.read(uri, ctx)
        except UnknownResource as error:
            self._life.naming_down_remotes(error, uri)
            raise
        finally:
            exit_context(token)

    # -- serving: the one edge from server/ up to the mcp/ adapter -----------------------------------

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
        """An ASGI app serving this server over streamable HTTP at `path` (see `toolweave.mcp.serve.http_app`)."""
        from toolweave.mcp.serve import http_app

        return http_app(self, path=path, **options)
