"""`MapResult`: post-process a tool's results (truncate, redact, reshape), keeping them consistent.

`fn` gets the parent's `ToolResult` (and the `Context`, if it takes two arguments) and returns a
new `ToolResult` or a plain value, which is converted like a function tool's return value under
the new output schema. The output schema and the structured content stay consistent: with no
output schema the structured content is dropped, and with one (by default) each result's
structured content is checked against it where every result is, at the server's boundary
(`toolweave.core.output.OutputCheck`); a mismatch is an internal error (masked for clients,
logged on the server) rather than a wrong answer. Error results pass through unmapped.

Example:
    >>> from toolweave import Tool
    >>> def report(topic: str) -> str:
    ...     return "a very long report about " + topic
    >>> short = Tool.from_function(report).with_transforms(MapResult(lambda r: r.text[:6]))
    >>> short.output_schema is None
    True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolweave.core.context import Context
from toolweave.core.result import ResultConverter, ToolResult
from toolweave.core.schema import output_schema_for, wrap_result_schema
from toolweave.core.schema_shapes import check_shape
from toolweave.core.tool import Tool
from toolweave.transforms.signature import NOT_SET


def resolve_output_schema(parent: Mapping[str, Any] | None, wanted: Any) -> Mapping[str, Any] | None:
    """The new output schema: kept (`NOT_SET`), removed (`None`), a JSON Schema or a Python type."""
    if wanted is NOT_SET:
        return parent
    if wanted is None:
        return None
    if isinstance(wanted, Mapping):
        return dict(wanted) if wanted.get("type") == "object" else wrap_result_schema(wanted)
    return output_schema_for(wanted)


@dataclass(frozen=True)
class MapResult:
    """Transform each successful result with `fn(result)` or `fn(result, ctx)` (sync or async).

    Attributes:
        fn: The mapping function.
        output_schema: The new output schema: left out keeps the parent's, `None` removes it,
            a JSON Schema dict or a Python type (`output_schema=dict[str, int]`) declares one.
        check: Check structured content against the output schema on every call (at the server's
            boundary); `False` vouches for `fn` and skips the check.

    Example:
        >>> redact = MapResult(lambda r: {"count": len(r.text)}, output_schema={
        ...     "type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]})
        >>> redact.describe()
        'map results with <lambda>'
    """

    fn: Callable[..., Any]
    output_schema: Any = NOT_SET
    check: bool = True

    def __post_init__(self) -> None:
        if not callable(self.fn):
            raise TypeError(f"MapResult takes a function of the result, not {type(self.fn).__name__}")
        try:  # (what it is called with: every call would fail otherwise)
            inspect.signature(self.fn).bind(*((None, None) if _takes_ctx(self.fn) else (None,)))
        except TypeError:
            name = getattr(self.fn, "__qualname__", type(self.fn).__name__)
            raise TypeError(f"MapResult: {name} must take (result) or (result, ctx)") from None
        except ValueError:  # (no signature to read: left to the call)
            pass
        if isinstance(self.output_schema, Mapping):  # (every result would fail its check as an internal error)
            check_shape(self.output_schema, "MapResult: output_schema")

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return f"map results with {getattr(self.fn, '__qualname__', type(self.fn).__name__)}"

    def apply(self, tool: Tool) -> Tool:
        """`tool` whose results pass through `fn`."""
        schema = resolve_output_schema(tool.output_schema, self.output_schema)
        return tool.derive(
            self, output_schema=schema, output_checked=not self.check, run=_mapped_run(tool, self.fn, schema)
        )


def _mapped_run(tool: Tool, fn: Callable[..., Any], schema: Mapping[str, Any] | None) -> Any:
    inner = tool.run
    convert = ResultConverter(schema)
    takes_ctx = _takes_ctx(fn)

    async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        result = await inner(arguments, ctx)
        if result.is_error:
            return result
        value = fn(result, ctx) if takes_ctx else fn(result)
        if inspect.isawaitable(value):  # an async function, an async callable object, a lambda returning one
            value = await value
        out = value if isinstance(value, ToolResult) else convert(value)
        if schema is None and out.structured_content is not None:
            return replace(out, structured_content=None)
        return out

    return run


def _takes_ctx(fn: Callable[..., Any]) -> bool:
    """Whether `fn` is called with the context too: it requires a second positional argument (one
    with a default, `fn(result, verbose=False)`, is left to its default).

    Example:
        >>> _takes_ctx(lambda result, ctx: 1), _takes_ctx(lambda result, verbose=False: 1), _takes_ctx(len)
        (True, False, False)
    """
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins without a readable signature take the result only
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty]
    return len(required) >= 2
