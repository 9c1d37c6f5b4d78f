"""`@toolweave.tool`: mark a function as a tool and keep it a plain, callable function.

The decorator returns a wrapt proxy of the original function: calling it, `inspect.signature`,
`__name__`, `__doc__` and equality behave exactly as the function's; the `Tool` is at `.tool`.

Example:
    >>> @tool(tags={"math"})
    ... def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> add(1, 2), add.tool.name
    (3, 'add')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

import wrapt

from toolweave.core.tool import Tool

F = TypeVar("F", bound=Callable[..., Any])


class ToolFunction(wrapt.FunctionWrapper):  # type: ignore[misc,type-arg]
    """The original function, still callable as itself, carrying its `Tool`."""

    def __init__(self, fn: Callable[..., Any], made: Tool) -> None:
        super().__init__(fn, call_through)
        self._self_tool = made

    @property
    def tool(self) -> Tool:
        """The `Tool` built from this function."""
        tool: Tool = self._self_tool
        return tool


def call_through(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The wrapt wrapper of decorated tools and prompts: call the original function as it is."""
    return wrapped(*args, **kwargs)


def as_tool(fn_or_tool: Any, **options: Any) -> Tool:
    """A `Tool` from a tool, a decorated function, or a plain function (with `from_function` options)."""
    if isinstance(fn_or_tool, Tool):
        if options:
            raise TypeError("options apply when building a tool from a function, not to an existing Tool")
        return fn_or_tool
    if isinstance(fn_or_tool, ToolFunction) and not options:
        return fn_or_tool.tool
    if isinstance(fn_or_tool, ToolFunction):
        fn_or_tool = fn_or_tool.__wrapped__
    if isinstance(fn_or_tool, classmethod):  # (`@server.tool` over `@classmethod`, in the class body)
        name = fn_or_tool.__func__.__name__
        raise TypeError(
            f"tool {name!r} is a classmethod in its class body, where the class does not exist yet: "
            f"register it after the class, add_tool(TheClass.{name})"
        )
    if not callable(fn_or_tool):
        raise TypeError(f"expected a function or a Tool, got {type(fn_or_tool).__name__}")
    return Tool.from_function(fn_or_tool, **options)


def make_decorator(
    register: Callable[[Tool], Any] | None, fn: Callable[..., Any] | None, options: dict[str, Any]
) -> Any:
    """The shared body of `@tool` and `@server.tool`, in all three spellings."""

    def decorate(func: F) -> F:
        made = as_tool(func, **options)
        if register is not None:
            register(made)
        inner = func.__wrapped__ if isinstance(func, ToolFunction) else func
        return ToolFunction(inner, made)  # type: ignore[return-value]

    if fn is None:
        return decorate
    if isinstance(fn, str):  # @server.tool("name")
        options["name"] = fn
        return decorate
    return decorate(fn)


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(fn: None = None, /, **options: Any) -> Callable[[F], F]: ...
def tool(fn: Any = None, /, **options: Any) -> Any:
    """Make a `Tool` from a function without registering it anywhere.

    `@tool`, `@tool()` and `@tool(name=..., description=..., ...)` all work; the options are
    those of `Tool.from_function`.
    """
    return make_decorator(None, fn, options)
