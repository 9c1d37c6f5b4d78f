"""Build a `Tool` from a Python function: schema from the signature, description from the docstring.

Example:
    >>> def add(a: int, b: int = 2) -> int:
    ...     '''Add two numbers.
    ...
    ...     Args:
    ...         a: the first number
    ...     '''
    ...     return a + b
    >>> tool = tool_from_function(add)
    >>> tool.description, tool.input_schema["properties"]["a"]
    ('Add two numbers.', {'description': 'the first number', 'type': 'integer'})
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from toolweave.core.context import Context
from toolweave.core.fast_schema import fast_input_schema
from toolweave.core.invoke import make_invoker
from toolweave.core.reading import (
    Parameter,
    build_model,
    callable_name,
    has_default,
    infer_output_schema,
    model_schema,
    parameters,
    target,
    type_hints,
)
from toolweave.core.result import ResultConverter
from toolweave.core.tool import Origin, Tool, ToolAnnotations
from toolweave.core.validation import LazyModelValidator, ModelValidator

INFER: Any = object()
"""Default of `output_schema=`: infer it from the return annotation."""

_NO_TAGS: frozenset[str] = frozenset()


def _input_schema_and_validator(
    fn: Callable[..., Any], tool_name: str, params: list[Parameter], hidden: frozenset[str]
) -> tuple[dict[str, Any], ModelValidator]:
    """The input schema and validator: for simple signatures the model waits for the first call
    (and the function is read again then, so that thousands of tools hold no parameter lists)."""
    schema = fast_input_schema(params)
    if schema is not None:
        return schema, _ModelWhenCalled(fn, tool_name, hidden)
    model, renamed = build_model(tool_name, params)
    return model_schema(tool_name, model), ModelValidator(model, names=renamed, forbidden=hidden)


class _ModelWhenCalled(LazyModelValidator):
    """A function tool's validator, whose model is built from the function, read again, on
    first use (one slotted object: thousands of tools hold one each until their first call)."""

    __slots__ = ("_fn", "_tool_name")

    def __init__(self, fn: Callable[..., Any], tool_name: str, excluded: frozenset[str]) -> None:
        super().__init__(_built_by_the_subclass, forbidden=excluded)
        self._fn = fn
        self._tool_name = tool_name

    def _model(self) -> tuple[type[BaseModel], Mapping[str, str] | None]:
        params, _, _ = parameters(self._fn, self._tool_name, hints=type_hints(target(self._fn)))
        excluded = self._forbidden
        return build_model(self._tool_name, [param for param in params if param.name not in excluded])


def _built_by_the_subclass() -> tuple[type[BaseModel], Mapping[str, str] | None]:
    raise AssertionError("_ModelWhenCalled builds its model itself")


def _make_run(
    fn: Callable[..., Any], context_param: str | None, run_in_thread: bool, convert: ResultConverter
) -> Callable[[dict[str, Any], Context], Any]:
    return make_invoker(fn, context_param, run_in_thread=run_in_thread, convert=convert)


def tool_from_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    tags: Iterable[str] = (),
    annotations: ToolAnnotations | Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    exclude_args: Iterable[str] = (),
    output_schema: Mapping[str, Any] | None = INFER,
    enabled: bool = True,
    run_in_thread: bool = True,
) -> Tool:
    """A `Tool` that calls `fn`.

    Args:
        fn: A sync or async function (or callable object) with named parameters.
        name: The tool name; defaults to the function's name.
        title: A human-readable title.
        description: Defaults to the docstring text above its `Args:` section.
        tags: Labels for selecting tools (transforms, middleware, enable/disable).
        annotations: `ToolAnnotations` or a dict of hints (`readOnlyHint`, ...).
        meta: Static `_meta` sent with the tool definition.
        exclude_args: Parameters to leave out of the schema; each must have a default.
        output_schema: An explicit output schema, `None` for none, or inferred by default.
        enabled: Whether the tool starts enabled.
        run_in_thread: Run a sync function in a worker thread (default) or inline.

    Raises:
        TypeError: for `*args`/`**kwargs`, positional-only parameters, a lambda without a name,
            an excluded argument that does not exist or has no default, or unschematisable types.
    """
    tool_name = name or callable_name(fn)
    hints = type_hints(target(fn))
    params, context_param, doc_description = parameters(fn, tool_name, hints=hints)
    excluded = set(exclude_args)
    by_name = {param.name: param for param in params}
    for arg in excluded:
        if arg not in by_name:
            raise TypeError(f"tool {tool_name!r}: exclude_args names {arg!r}, which is not a parameter")
        if not has_default(by_name[arg]):
            raise TypeError(f"tool {tool_name!r}: cannot exclude {arg!r}: it has no default to use instead")
    visible = [param for param in params if param.name not in excluded] if excluded else params
    hidden = frozenset(excluded) if excluded else _NO_TAGS  # refused even with extra_args="ignore"
    input_schema, validator = _input_schema_and_validator(fn, tool_name, visible, hidden)
    returns: Any = None  # the annotation results are validated against, when the schema came from it
    if output_schema is INFER:
        output_schema = infer_output_schema(fn, hints)
        if output_schema is not None:
            returns = hints.get("return", Any)
    return Tool(
        name=tool_name,
        title=title,
        description=description if description is not None else doc_description,
        input_schema=input_schema,
        output_schema=output_schema,
        annotations=ToolAnnotations.coerce(annotations),
        tags=frozenset(tags) if tags else _NO_TAGS,
        meta=dict(meta) if meta else None,
        enabled=enabled,
        run=_make_run(fn, context_param, run_in_thread, ResultConverter.shared(output_schema, returns)),
        validator=validator,
        hidden=hidden,
        output_checked=returns is not None,
        origin=Origin("function", getattr(fn, "__module__", None) or "?", getattr(fn, "__qualname__", tool_name)),
        fn=fn,
    )
