"""The `Middleware` base, `ToolCall`, and how a tool's chain is built once.

Middleware wraps calls: `async def on_call_tool(self, call, call_next)`. For every exposed tool
the chain is folded once, when the catalog is compiled, from the middleware whose selector
matches that tool: **the first middleware added is the outermost**. Middleware that does not
apply to a tool (or does not override `on_call_tool`) is not in its chain and costs it nothing.

Example:
    >>> import anyio
    >>> from toolweave import Server, TextContent
    >>> class Shout(Middleware):
    ...     async def on_call_tool(self, call, call_next):
    ...         result = await call_next(call)
    ...         return ToolResult([TextContent(result.text.upper())])
    >>> server = Server("demo", middleware=[Shout(tools="greet")])
    >>> @server.tool
    ... async def greet(name: str) -> str:
    ...     return f"hello {name}"
    >>> anyio.run(server.call_tool, "greet", {"name": "ada"}).text
    'HELLO ADA'
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from toolweave.core.context import Context
from toolweave.core.invoke import is_async_callable
from toolweave.core.message import PromptResult
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool
from toolweave.middleware.chain import bind, fold
from toolweave.middleware.hooks import GetPromptNext, PromptCall, ReadResourceNext, ResourceRead, selects
from toolweave.middleware.selector import Selector

if TYPE_CHECKING:
    from toolweave.store.base import Store


class ToolCall(NamedTuple):
    """One call on its way through the chain: the exposed tool, validated arguments, context.

    Immutable (a named tuple: creating one per call is about half the cost of a frozen
    dataclass). Change a call by making a new one with `replace`.

    Example:
        >>> from toolweave.testing import fake_tool
        >>> call = ToolCall(fake_tool("echo"), {"text": "hi"}, Context())
        >>> call.replace(arguments={"text": "bye"}).arguments
        {'text': 'bye'}
    """

    tool: Tool
    arguments: dict[str, Any]
    ctx: Context

    def replace(self, **changes: Any) -> ToolCall:
        """A copy with some fields changed, e.g. `call.replace(arguments={...})`."""
        return self._replace(**changes)


new_call = tuple.__new__
"""`new_call(ToolCall, (tool, arguments, ctx))`: a `ToolCall` made by the tuple constructor itself,
for the call path, at about half the cost of `ToolCall(tool, arguments, ctx)` (a named tuple's
`__new__` is a Python function around this same call)."""


class CallNext(Protocol):
    """The rest of the chain."""

    def __call__(self, call: ToolCall, /) -> Awaitable[ToolResult]: ...


Handler = Callable[[ToolCall], Awaitable[ToolResult]]


class Middleware:
    """Base class: override `on_call_tool` and/or `on_list_tools`; set `tools` to scope it.

    `on_get_prompt` and `on_read_resource` wrap `prompts/get` and `resources/read` the same way
    (see `toolweave.middleware.hooks`).

    Args:
        tools: Which tools this middleware wraps: a `Selector`, a name glob, a list of globs or a
            predicate `(tool) -> bool`; `None` (the default) wraps every tool.
        prompts / resources: The same for `on_get_prompt` / `on_read_resource` (a predicate is
            given the prompt or resource; annotation hints are not checked on them).

    Attributes:
        tools: The tool selector (`None` = all tools).
        prompts: Which prompts `on_get_prompt` wraps (name globs, tags, a predicate); None = all.
        resources: Which resources `on_read_resource` wraps (globs on name or URI, tags, a
            predicate); None = all.
    """

    tools: Selector | None = None
    prompts: Selector | None = None
    resources: Selector | None = None

    def __init__(self, *, tools: Any = None, prompts: Any = None, resources: Any = None) -> None:
        self.tools = Selector.coerce(tools)
        self.prompts = Selector.coerce(prompts)
        self.resources = Selector.coerce(resources)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Wrap one call; the default passes it on unchanged."""
        return await call_next(call)

    async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
        """Filter or reorder the listed tools per request; the default returns them unchanged."""
        return tools

    def applies_to(self, tool: Tool) -> bool:
        """Whether this middleware belongs in `tool`'s chain."""
        if type(self).on_call_tool is Middleware.on_call_tool:
            return False
        selector = Selector.coerce(self.tools)
        return selector is None or selector.matches(tool)

    def for_tool(self, tool: Tool) -> Middleware | None:
        """The middleware to put in `tool`'s chain, or `None` to leave the chain without it.

        Called once per tool when the catalog is compiled. The default returns `self` when
        `applies_to(tool)`; a built-in may return a variant specialised for this tool (e.g. with
        its timeout already resolved) so that nothing is looked up per call.
        """
        return self if self.applies_to(tool) else None

    def bind_tool(self, call_next: Handler) -> Handler:
        """This middleware's step in a tool's chain, around the rest of it (`call_next`), built once.

        The default calls `on_call_tool(call, call_next)`. A built-in may return a plain
        function that hands back `call_next(call)` itself for a call it has nothing to do for
        (a `Logging` whose logger is off, a `Progress` without a sink): such a call goes
        through it without a coroutine of its own.
        """
        return bind(self.on_call_tool, call_next)

    def bind_skippable(
        self,
        own: type[Middleware],
        call_next: Handler,
        idle: Callable[[ToolCall], bool],
        work: Callable[[ToolCall, Handler], Awaitable[ToolResult]],
    ) -> Handler:
        """`bind_tool` for a built-in (`own`, the class whose `on_call_tool` it is) that has nothing
        to do for some calls: those (`idle(call)`) go straight on, without a coroutine of its own;
        the others run `work(call, call_next)`. A subclass overriding `on_call_tool` keeps the
        generic step."""
        if type(self).on_call_tool is not own.on_call_tool:
            return bind(self.on_call_tool, call_next)

        def step(call: ToolCall) -> Awaitable[ToolResult]:
            return call_next(call) if idle(call) else work(call, call_next)

        return step

    def use_store(self, store: Store, scope: str) -> None:
        """Called when added to a server: take shared state from its `store` (`scope` names this
        middleware on that server). The default keeps no state; stateful built-ins override it."""

    @property
    def name(self) -> str:
        """The label `explain` shows for this middleware."""
        return type(self).__name__

    def lists_tools(self) -> bool:
        """Whether this middleware changes tool listings (so lists cannot come from the cache)."""
        return type(self).on_list_tools is not Middleware.on_list_tools

    async def on_get_prompt(self, call: PromptCall, call_next: GetPromptNext) -> PromptResult:
        """Wrap one `prompts/get`; the default passes it on unchanged."""
        return await call_next(call)

    async def on_read_resource(self, read: ResourceRead, call_next: ReadResourceNext) -> ResourceResult:
        """Wrap one `resources/read`; the default passes it on unchanged."""
        return await call_next(read)

    def applies_to_prompt(self, prompt: Prompt) -> bool:
        """Whether this middleware belongs in `prompt`'s chain."""
        if type(self).on_get_prompt is Middleware.on_get_prompt:
            return False
        return selects(self.prompts, prompt)

    def applies_to_resource(self, resource: Resource) -> bool:
        """Whether this middleware belongs in `resource`'s chain."""
        if type(self).on_read_resource is Middleware.on_read_resource:
            return False
        return selects(self.resources, resource)


def as_middleware(candidate: object) -> Middleware:
    """`candidate`, checked to be a `Middleware` instance (what `add_middleware` and
    `Server(middleware=[...])` take); a `TypeError` saying what it is and how to make one if not.

    Example:
        >>> async def audit(call, call_next):
        ...     return await call_next(call)
        >>> as_middleware(audit)
        Traceback (most recent call last):
        ...
        TypeError: expected a Middleware instance, got function 'audit' (decorate it with @middleware)
        >>> as_middleware(Middleware)
        Traceback (most recent call last):
        ...
        TypeError: expected a Middleware instance, got the class Middleware: pass an instance, Middleware(...)
    """
    if isinstance(candidate, Middleware):
        return candidate
    raise TypeError(f"expected a Middleware instance, got {_what(candidate)}")


def _what(candidate: object) -> str:
    """How `as_middleware` names something that is not a middleware, with the likely fix."""
    if isinstance(candidate, type):
        name = candidate.__name__
        if issubclass(candidate, Middleware):
            return f"the class {name}: pass an instance, {name}(...)"
        return f"the class {name}, which is not a Middleware subclass"
    if inspect.isroutine(candidate):
        name = getattr(candidate, "__name__", "?")
        return f"function {name!r} (decorate it with @middleware)"
    shown = repr(candidate)
    shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
    return "None" if candidate is None else f"{type(candidate).__name__} {shown}"


def tool_runner(tool: Tool) -> Handler:
    """The innermost handler: run the tool with the call's arguments and context. `run` is read
    per call (a slot read), so building a chain does not read a lazily read function tool."""

    def innermost(call: ToolCall) -> Awaitable[ToolResult]:
        return tool.run(call.arguments, call.ctx)

    return innermost


def chain_for(middleware: Sequence[Middleware], tool: Tool) -> tuple[Middleware, ...]:
    """The layers of `tool`'s chain, outermost first: what each middleware's `for_tool` gives."""
    return tuple(layer for layer in (m.for_tool(tool) for m in middleware) if layer is not None)


def build_chain(middleware: Sequence[Middleware], inner: Handler) -> Handler:
    """Fold `middleware` around `inner` with the one `fold` (each layer's `bind_tool`):
    `middleware[0]` ends up outermost."""
    return fold([layer.bind_tool for layer in middleware], inner)


def middleware(fn: Callable[[ToolCall, CallNext], Awaitable[ToolResult]] | None = None, *, tools: Any = None) -> Any:
    """Turn `async def fn(call, call_next)` into a `Middleware`.

    Example:
        >>> @middleware(tools="billing_*")
        ... async def audit(call, call_next):
        ...     return await call_next(call)
        >>> audit.name
        'audit'
    """

    def wrap(func: Callable[[ToolCall, CallNext], Awaitable[ToolResult]]) -> Middleware:
        return FunctionMiddleware(func, tools=tools)

    return wrap(fn) if fn is not None else wrap


def _check_function(fn: Callable[..., Any], name: str) -> None:
    """`TypeError` for what would fail every call it wraps: a sync function (its chain awaits what
    it returns: a `ToolResult`, or the coroutine of a `call_next` it could not await), or one
    that does not take `(call, call_next)`."""
    if not callable(fn):
        raise TypeError(f"@middleware takes an async function (call, call_next), not {type(fn).__name__}")
    if not is_async_callable(fn):
        raise TypeError(f"@middleware takes an async function: write async def {name}(call, call_next)")
    try:
        inspect.signature(fn).bind(None, None)
    except TypeError:
        raise TypeError(f"@middleware: {name} must take two arguments, (call, call_next)") from None
    except ValueError:  # (no signature to read: left to the call)
        pass


class FunctionMiddleware(Middleware):
    """A middleware made from one `async (call, call_next)` function."""

    def __init__(self, fn: Callable[[ToolCall, CallNext], Awaitable[ToolResult]], tools: Any = None) -> None:
        super().__init__(tools=tools)
        self.fn = fn
        _check_function(fn, self.name)

    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return await self.fn(call, call_next)

    @property
    def name(self) -> str:
        return getattr(self.fn, "__name__", "middleware")
