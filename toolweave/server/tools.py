"""Tools in the generic pipeline: what differs from prompts and resources.

- the key is the name; the server's transforms apply to every candidate (local, upstream,
  mounted) when the catalog compiles;
- a mounted child's tool is renamed `{prefix}{separator}{name}` and runs the child's chain; the
  URIs of the resource links and embedded resources in its results are renamed like the child's
  resources (`toolweave.server.links`);
- the chain folds `on_call_tool` (each middleware's `for_tool` resolved once per tool);
- a call validates once, runs the chain, checks the result (`OutputCheck`) and turns any
  failure into an `isError` result; an unknown tool is `UnknownTool`.

Example:
    >>> import anyio
    >>> from toolweave.server.server import Server
    >>> server = Server("demo")
    >>> @server.tool
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> anyio.run(server.catalog.call, "add", {"a": 1, "b": 2}, Context()).structured_content
    {'result': 3}
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from toolweave.core.context import Context
from toolweave.core.errors import InvalidArguments, UnknownTool
from toolweave.core.masking import ErrorPolicy
from toolweave.core.names import check_name
from toolweave.core.output import OutputCheck
from toolweave.core.result import ToolResult
from toolweave.core.tool import Composite, Tool
from toolweave.core.validation import ArgumentErrors, hidden_sent
from toolweave.middleware.base import Middleware, ToolCall, build_chain, chain_for, new_call, tool_runner
from toolweave.middleware.keys import caller_key
from toolweave.server.catalog import BOUNDARY, Catalog, Entry, is_failure, security
from toolweave.server.front_chain import Reached, front_chain
from toolweave.server.fronts import fronted
from toolweave.server.links import Links
from toolweave.server.mount import Mount
from toolweave.server.registry import Owner, Registry, transformed
from toolweave.telemetry.events import FAILED
from toolweave.telemetry.spans import TOOL_NAME
from toolweave.transforms.authorize import Authorize
from toolweave.transforms.catalog import CatalogTransform, Components
from toolweave.transforms.limit_result import LimitResult

_ANY_TOOLS = (LimitResult, Authorize)
"""The server's tool transforms that reach the tools its catalog transforms add too."""
logger = logging.getLogger("toolweave.server")


class ToolOwner(Owner, Components, Protocol):
    """A server, as its tool registry sees it: its rules, plus its catalog transforms and its
    prompts and resources (which catalog transforms may reach)."""

    @property
    def catalog_transforms(self) -> tuple[CatalogTransform, ...]: ...


Failed = Callable[[BaseException], None]


@dataclass(frozen=True, slots=True)
class ToolEntry(Entry[Tool]):
    """One exposed tool; `check` is what its successful results must be to go out; `reaches`:
    a catalog transform's tool that calls a catalog tool (a middleware that wraps the tool a
    call reaches runs around that tool instead, see `front_chain`)."""

    check: OutputCheck = field(default_factory=lambda: OutputCheck.of(None, validate=False))
    reaches: bool = False

    @property
    def tool(self) -> Tool:
        """The exposed tool."""
        return self.component


@dataclass(slots=True)
class ToolCatalog(Catalog[ToolEntry]):
    """The compiled view of a server's tools."""

    unknown = UnknownTool

    list_middleware: tuple[Middleware, ...] = ()
    tools: tuple[Tool, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.tools = tuple(entry.component for entry in self.entries.values())

    async def call(
        self, name: str, arguments: dict[str, Any] | None, ctx: Context, *, failed: Failed | None = None
    ) -> ToolResult:
        """Validate and run one call; failures are `isError` results, except the protocol answers.

        A failure is masked by the tool's own policy (`MaskErrors`), else by that of the call the
        client made when this one runs inside it (`catalog.BOUNDARY`: a front tool's call of a
        catalog tool), else by the server's.

        `failed`, if given, is told the error behind an `isError` result (telemetry's outcome),
        and the error behind one of the call a tool of a catalog transform makes in it
        (`SearchTools`' `call_tool`: noted on `ctx`, see `telemetry.events.reaching`).

        Raises:
            UnknownTool: no enabled tool has that name.
            MissingCapability: the tool needs a client capability the client did not declare.
            InputRequired: the tool needs input from the client first.
        """
        entry = self.entries.get(name)
        if entry is None:
            raise UnknownTool(name)
        tool = entry.component
        if failed is not None:
            ctx.state[FAILED] = failed
        elif FAILED in ctx.state:  # an in-process call made inside an observed one: its failure is not that call's
            del ctx.state[FAILED]
        if tool.access is not None:
            self.admitted(entry, name, ctx)
        if arguments and not self.reject_extra:  # names the server sets are dropped like unknown ones
            sent = hidden_sent(tool.validator, arguments)
            if sent:
                _spoofing(name, sent, ctx, "dropped")
        try:
            validated = tool.validator.validate(arguments or {}, reject_extra=self.reject_extra)
        except ArgumentErrors as problems:
            return _refused(name, problems, ctx, failed)
        state = ctx.state
        boundary: ErrorPolicy | None = state.get(BOUNDARY)  # a call around this one: the client's
        if boundary is None:
            errors = state[BOUNDARY] = entry.errors
        else:  # the tool's own policy, else the client's call's (as for a tool mounted directly)
            errors = tool.error_policy or boundary
        try:  # one frame for the chain, the tool and the check: this is every call's path
            if entry.handler is None:
                result: ToolResult = await tool.run(validated, ctx)
            else:
                result = await entry.handler(new_call(ToolCall, (tool, validated, ctx)))
                if type(result) is not ToolResult:  # (one check; subclasses and mistakes take the slow way)
                    result = chain_result(result, name, entry)
            entry.check(result)
            return result
        except BaseException as error:
            if not is_failure(error):
                raise
            if failed is not None:
                failed(error)
            return errors.to_result(name, error)
        finally:
            if boundary is None:
                del state[BOUNDARY]

    async def list_tools(self, ctx: Context) -> list[Tool]:
        """The tools this request's caller may see, after per-request middleware filters (if any)."""
        tools = list(self.view("tools", self.tools, ctx.auth)[1])
        for layer in self.list_middleware:
            tools = listed(await layer.on_list_tools(tools, ctx), layer)
        return tools


def _refused(name: str, problems: ArgumentErrors, ctx: Context, failed: Failed | None) -> ToolResult:
    """The answer to a call of tool `name` whose arguments do not validate (`problems`)."""
    if problems.spoofed:
        _spoofing(name, problems.spoofed, ctx, "refused")
    refused = InvalidArguments(name, problems.problems)
    if failed is not None:
        failed(refused)
    return ToolResult.error(str(refused))


def _spoofing(tool: str, names: tuple[str, ...], ctx: Context, answer: str) -> None:
    """Log a client sending arguments the server sets (`answer`ed like any unexpected argument)."""
    sent = ", ".join(map(repr, names))
    message = "caller %s sent %s to tool %r: hidden (renamed away or set by the server), %s"
    security.warning(message, caller_key(ctx), sent, tool, answer)


def listed(result: object, layer: Middleware) -> list[Tool]:
    """`result`, what `layer.on_list_tools` returned, as a list if it is a list or tuple of `Tool`s;
    else a `TypeError` naming the middleware and what it returned (never the tools themselves).

    Example:
        >>> from toolweave.middleware import Timeout
        >>> listed(None, Timeout(5))
        Traceback (most recent call last):
        ...
        TypeError: the middleware Timeout returned None from on_list_tools, not a list of Tool: does it ...
    """
    if isinstance(result, (list, tuple)):
        odd = next((item for item in result if not isinstance(item, Tool)), None)
        if odd is None:
            return result if type(result) is list else list(result)
        got = f"a {type(result).__name__} holding a {type(odd).__name__}"
    else:
        got = "None" if result is None else f"a {type(result).__name__}"
    raise TypeError(
        f"the middleware {layer.name} returned {got} from on_list_tools, not a list of Tool: "
        "does it return the tools (`return tools`)?"
    )


def chain_result(result: object, name: str, entry: Entry[Tool]) -> ToolResult:
    """`result`, what tool `name`'s middleware chain returned, if it is a `ToolResult` (a subclass:
    the fast `type(...) is` check missed it); else a `TypeError` naming the chain and the likely
    slip. Raised inside the call, it is an internal error like any other: masked, logged.

    Example:
        >>> from toolweave.middleware import Timeout
        >>> from toolweave.server.server import Server
        >>> server = Server("demo", middleware=[Timeout(5)])
        >>> _ = server.add_tool(lambda q: q, name="search")
        >>> chain_result(None, "search", server.catalog.get("search"))
        Traceback (most recent call last):
        ...
        TypeError: the middleware of tool 'search' (Timeout(5s)) returned None, not a ToolResult: does each ...
    """
    if isinstance(result, ToolResult):
        return result
    if inspect.iscoroutine(result):
        result.close()  # (never awaited: closed here rather than warned about at collection)
        got, hint = "a coroutine", "does each `await call_next(call)` (and is its hook `async def`)?"
    else:
        got = "None" if result is None else f"a {type(result).__name__}"
        hint = "does each return `await call_next(call)`?"
    layers = ", ".join(layer.name for layer in entry.chain)
    raise TypeError(f"the middleware of tool {name!r} ({layers}) returned {got}, not a ToolResult: {hint}")


def through_chain(entry: Entry[Tool]) -> Callable[[dict[str, Any], Context], Any]:
    """A tool's whole call path (its middleware, then the tool) as a tool `run`, for a parent."""
    handler = entry.handler
    if handler is None:
        return entry.component.run
    tool = entry.component

    async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        result: ToolResult = await handler(new_call(ToolCall, (tool, arguments, ctx)))
        if type(result) is not ToolResult:
            result = chain_result(result, tool.name, entry)
        return result

    return run


class ToolRegistry(Registry[Tool, ToolCatalog]):
    """The tools of one server: registered locally, listed by an upstream, or exposed by mounts."""

    kind = "tool"
    unknown = UnknownTool
    owner: ToolOwner

    def key(self, component: Tool) -> str:
        return component.name

    def check(self, component: Tool) -> None:
        check_name(component.name)

    def exposed(self, entry: Entry[Tool], mount: Mount[Any]) -> Tool:
        run = mount.linked(through_chain(entry), _tool_links)
        run = mount.traced(run, (TOOL_NAME, entry.component.name), failed=_is_error)
        return mount.rename.apply(entry.component).replace(run=run)

    def build_entry(self, component: Tool, origin: str) -> ToolEntry:
        middleware = self.owner.middleware
        chain = chain_for(middleware, component) if middleware else ()
        handler = build_chain(chain, tool_runner(component)) if chain else None
        errors = component.error_policy or self.owner.error_policy
        check = OutputCheck.of(component.output_schema, validate=not component.output_checked)
        return ToolEntry(component, origin, chain, handler, errors, check)

    def front_entry(self, component: Tool, origin: str, reached: Reached | None) -> ToolEntry:
        """The entry of a tool a catalog transform adds: the server's middleware whose selection
        takes it, each once per call with the tool it reaches (`front_chain`), and of the
        server's tool transforms only those that hold for any tool: `LimitResult`, so a
        `read_resource` or `get_prompt` answer is cut like every other, and `Authorize`, so a
        rule whose selection takes `call_tool` (or every tool) gates it."""
        rules = self.owner.transforms_for("tool")
        bounding = tuple((part, chosen) for rule, chosen in rules for part in any_tool_parts(rule))
        component = transformed(component, bounding)
        chain, handler = front_chain(self.owner.middleware, component, reached)
        errors = component.error_policy or self.owner.error_policy
        check = OutputCheck.of(component.output_schema, validate=not component.output_checked)
        return ToolEntry(component, origin, chain, handler, errors, check, reached is not None)

    def build_catalog(self, entries: dict[str, Entry[Tool]]) -> ToolCatalog:
        owner = self.owner
        catalog = ToolCatalog(
            entries=entries,  # type: ignore[arg-type]
            reject_extra=owner.extra_args == "reject",
            errors=owner.error_policy,
            list_middleware=tuple(layer for layer in owner.middleware if layer.lists_tools()),
        )
        _warn_unreached_rules(owner)
        fronts = owner.catalog_transforms
        return fronted(catalog, fronts, owner, self.front_entry) if fronts else catalog


def any_tool_parts(transform: object) -> tuple[LimitResult | Authorize, ...]:
    """What of one of a server's tool transforms holds for any tool, the tools its catalog
    transforms add too: a `LimitResult` or an `Authorize`, alone or among the steps of a
    `Composite` (a config rule that also renames or injects: those steps stay the server's own
    tools').

    Example:
        >>> from toolweave.config.steps import Steps
        >>> from toolweave.transforms import Rename
        >>> any_tool_parts(Steps((Rename("search"), LimitResult(max_bytes=300))))
        (LimitResult(max_bytes=300, max_items=None, structured='keep'),)
    """
    if isinstance(transform, _ANY_TOOLS):
        return (transform,)
    if isinstance(transform, Composite):
        return tuple(step for step in transform.steps if isinstance(step, _ANY_TOOLS))
    return ()


def _warn_unreached_rules(owner: ToolOwner) -> None:
    """Warn when `owner`'s `Authorize` rules cannot reach behind a mounted server's catalog
    transforms: the tools they add (`call_tool`, `get_prompt`, `read_resource`) call, render and
    read as the child sees its components, so a parent's rule on one of those components holds
    for its own listing and calls, not through them."""
    rules = (rule for kind in ("tool", "prompt", "resource") for rule, _ in owner.transforms_for(kind))
    if not any(isinstance(part, Authorize) for rule in rules for part in any_tool_parts(rule)):
        return
    for mount in owner.mounts:
        fronts = mount.child.catalog_transforms
        if fronts:
            logger.warning(
                "server %r: its Authorize rules do not reach behind the tools that server %r (%s) adds "
                "with %s: those call, render and read as %r sees its components; put the catalog "
                "transform on %r, or the rules on %r",
                owner.name, mount.child.name, mount.label, ", ".join(front.describe() for front in fronts),
                mount.child.name, owner.name, mount.child.name,
            )  # fmt: skip


def _tool_links(links: Links) -> Callable[[ToolResult], ToolResult]:
    return links.tool_result


def _is_error(result: ToolResult) -> bool:
    return result.is_error
