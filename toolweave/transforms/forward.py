"""`Forward`: replace a tool's signature with your own function, which calls the parent tool.

The function's own signature is the new tool's schema, and its arguments are validated against
it (at the boundary, once). Inside it, `await forward(**kwargs)` calls the parent tool with the
parent's *exposed* names (validated and mapped through the parent's transforms: renames,
defaults, injected values), and `await forward_raw(**kwargs)` calls the tool under the parent's
argument transforms with *its* names. Both return the parent's `ToolResult`.

Example:
    >>> from toolweave import Tool
    >>> def search(q: str, limit: int) -> list[str]:
    ...     return [q] * limit
    >>> async def top3(query: str):
    ...     '''Search, three results at most.'''
    ...     return await forward(q=query.strip(), limit=3)
    >>> tool = Tool.from_function(search).with_transforms(Forward(top3))
    >>> list(tool.input_schema["properties"])
    ['query']
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from toolweave.core.context import Context
from toolweave.core.errors import InvalidArguments, TransformError
from toolweave.core.function_tool import tool_from_function
from toolweave.core.invoke import is_async_callable
from toolweave.core.result import ToolResult
from toolweave.core.returns import infer_output_schema
from toolweave.core.tool import Tool
from toolweave.core.validation import ArgumentErrors, ModelValidator
from toolweave.transforms.argmap import MappedRun
from toolweave.transforms.signature import NOT_SET

# The parent of the `Forward` call in progress (set only around the custom function, so that
# `forward()` keeps the FastMCP-style call shape; the request Context is passed explicitly).
_calling: ContextVar[tuple[Tool, Context] | None] = ContextVar("toolweave_forward", default=None)


def _current(what: str) -> tuple[Tool, Context]:
    current = _calling.get()
    if current is None:
        raise RuntimeError(f"{what}() can only be called inside a Forward function while it runs")
    return current


async def _call(tool: Tool, run: Any, validator: Any, ctx: Context, kwargs: dict[str, Any]) -> ToolResult:
    try:
        validated = validator.validate(kwargs)
    except ArgumentErrors as error:
        raise InvalidArguments(tool.name, error.problems) from None
    result: ToolResult = await run(validated, ctx)
    return result


async def forward(**kwargs: Any) -> ToolResult:
    """Call the parent tool with its exposed argument names (validated, then mapped by its transforms).

    Example:
        >>> import anyio
        >>> from toolweave import Server
        >>> from toolweave.transforms import Forward
        >>> server = Server("demo")
        >>> @server.tool
        ... def echo(text: str) -> str:
        ...     return text
        >>> async def shout(text: str):
        ...     return await forward(text=text.upper())
        >>> server.add_transform(Forward(shout), tools="echo")
        >>> anyio.run(server.call_tool, "echo", {"text": "hi"}).text
        'HI'
    """
    parent, ctx = _current("forward")
    return await _call(parent, parent.run, parent.validator, ctx, kwargs)


async def forward_raw(**kwargs: Any) -> ToolResult:
    """Call the tool under the parent's argument transforms, with that tool's own argument names.

    Example:
        >>> import anyio
        >>> from toolweave import Server
        >>> from toolweave.transforms import Forward, TransformArgs
        >>> server = Server("demo")
        >>> @server.tool
        ... def search(q: str, limit: int = 10) -> str:
        ...     return f"{limit} results for {q}"
        >>> server.add_transform(TransformArgs({"q": "query"}), tools="search")  # exposed as `query`
        >>> async def raw(text: str):
        ...     return await forward_raw(q=text, limit=1)  # the tool's own names
        >>> server.add_transform(Forward(raw), tools="search")
        >>> anyio.run(server.call_tool, "search", {"text": "anyio"}).text
        '1 results for anyio'
    """
    parent, ctx = _current("forward_raw")
    mapped = MappedRun.of(parent.run)
    if mapped is not None:
        return await _call(mapped.base, mapped.inner, mapped.base.validator, ctx, kwargs)
    return await _call(parent, parent.run, parent.validator, ctx, kwargs)


@dataclass(frozen=True)
class Forward:
    """Expose `fn` (async, with its own signature) in place of the parent; it may call `forward()`.

    Attributes:
        fn: An async function; its parameters are the new tool's arguments (a `Context`
            parameter is injected), its docstring's `Args:` describe them.
        description: The new tool description; the parent's by default.

    Example:
        >>> async def clamp(limit: int = 10):
        ...     return await forward(limit=min(limit, 50))
        >>> Forward(clamp).describe()
        'forward through clamp'
    """

    fn: Callable[..., Any]
    description: Any = NOT_SET

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return f"forward through {getattr(self.fn, '__qualname__', type(self.fn).__name__)}"

    def apply(self, tool: Tool) -> Tool:
        """A tool with `fn`'s signature that runs `fn`, which reaches `tool` through `forward()`."""
        if not is_async_callable(self.fn):
            raise TransformError(
                f"tool {tool.name!r}: Forward needs an async function (it awaits forward()), "
                f"not {getattr(self.fn, '__qualname__', self.fn)!r}"
            )
        output_schema = infer_output_schema(self.fn) or tool.output_schema
        made = tool_from_function(self.fn, name=tool.name, output_schema=output_schema, run_in_thread=False)
        shown = made.validator.allowed
        hidden = frozenset(name for name in tool.hidden if name not in shown)
        validator = made.validator
        if hidden and isinstance(validator, ModelValidator):
            validator = ModelValidator(validator.model, names=validator.renamed, forbidden=hidden)
        inner = made.run
        parent = tool

        async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            token = _calling.set((parent, ctx))
            try:
                result: ToolResult = await inner(arguments, ctx)
                return result
            finally:
                _calling.reset(token)

        description = tool.description if self.description is NOT_SET else self.description
        return tool.derive(
            self,
            input_schema=made.input_schema,
            validator=validator,
            hidden=hidden,
            run=run,
            description=description,
            output_schema=output_schema,
            fn=self.fn,
        )
