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

import functools
import inspect
import keyword
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import PydanticJsonSchemaWarning

from toolweave.core.content import CONTENT_TYPES, MEDIA_HELPERS
from toolweave.core.context import Context
from toolweave.core.docstrings import parse_docstring
from toolweave.core.fast_schema import fast_input_schema
from toolweave.core.invoke import make_invoker
from toolweave.core.plain_signature import plain_parameters, plain_type_hints
from toolweave.core.result import ResultConverter, ToolResult
from toolweave.core.schema import object_schema, output_schema_for, prune_titles
from toolweave.core.tool import Origin, Tool, ToolAnnotations
from toolweave.core.validation import LazyModelValidator, ModelValidator

INFER: Any = object()
"""Default of `output_schema=`: infer it from the return annotation."""

_NO_OUTPUT_SCHEMA = (str, bytes, ToolResult, type(None), Any, *CONTENT_TYPES, *MEDIA_HELPERS)
_SENT_AS_CONTENT = (ToolResult, *CONTENT_TYPES, *MEDIA_HELPERS)
_BASEMODEL_NAMES = frozenset(dir(BaseModel))
_NO_TAGS: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of the function, as the schema and the validator see it."""

    name: str
    annotation: Any
    default: Any
    description: str | None


def _callable_name(fn: Callable[..., Any], what: str = "tool") -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if name == "<lambda>":
        raise TypeError(f"a lambda has no usable name: pass name= when making a {what} from it")
    return name


def _target(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The callable whose signature and type hints describe `fn` (callable objects: `__call__`)."""
    if inspect.isroutine(fn) or isinstance(fn, functools.partial):
        return fn
    bound: Callable[..., Any] | None = getattr(fn, "__call__", None)  # noqa: B004 - callable objects
    return bound if bound is not None else fn


def _is_context(annotation: Any) -> bool:
    if annotation is Context:
        return True
    if type(annotation) is type:  # any other plain class (the common case, answered quickly)
        return False
    if get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in get_args(annotation) if arg is not type(None)]
        return len(args) == 1 and args[0] is Context
    return False


def _type_hints(target: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations; `Context` resolves even where the module imported it locally."""
    function = inspect.unwrap(target)
    local = {"Context": Context}
    plain = plain_type_hints(function, local)
    if plain is not None:
        return plain
    try:
        return typing.get_type_hints(function, localns=local, include_extras=True)
    except Exception:
        pass
    namespace = {**getattr(function, "__globals__", {}), **local}
    hints = {}
    for name, annotation in getattr(function, "__annotations__", {}).items():
        try:
            hints[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
        except Exception:
            hints[name] = annotation
    return hints


def _split_annotated(annotation: Any) -> tuple[Any, str | None]:
    """`Annotated[T, "doc", ...]` → the annotation without plain strings, and the string."""
    if type(annotation) is type or get_origin(annotation) is not Annotated:
        return annotation, None
    base, *metadata = get_args(annotation)
    docs = [item for item in metadata if isinstance(item, str)]
    if not docs:
        return annotation, None
    rest = [item for item in metadata if not isinstance(item, str)]
    return (Annotated[(base, *rest)] if rest else base), docs[-1]


def _signature_parameters(
    fn: Callable[..., Any], target: Callable[..., Any], name: str, what: str
) -> list[tuple[str, Any, Any]]:
    """`[(name, default or ..., annotation)]` by `inspect.signature`; `TypeError` for unsupported parameter kinds."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} {name!r}: cannot read the signature of {fn!r}: {error}") from None
    found = []
    for param in signature.parameters.values():
        where = f"{what} {name!r}, parameter {param.name!r}"
        if param.kind is param.VAR_POSITIONAL:
            raise TypeError(f"{where}: *args is not supported; {what}s take named arguments only")
        if param.kind is param.VAR_KEYWORD:
            raise TypeError(f"{where}: **kwargs is not supported; declare each argument")
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"{where}: positional-only parameters are not supported; remove the '/'")
        default = ... if param.default is inspect.Parameter.empty else param.default
        found.append((param.name, default, param.annotation))
    return found


def _parameters(
    fn: Callable[..., Any], name: str, what: str = "tool", hints: dict[str, Any] | None = None
) -> tuple[list[Parameter], str | None, str | None]:
    """The schema parameters, the name of the `Context` parameter, and the docstring description.

    `what` names the kind of thing being built ("tool", "prompt", "resource") in error messages;
    `hints` are `fn`'s resolved type hints, if the caller already has them.
    """
    target = _target(fn)
    plain = plain_parameters(target)
    if plain is None:
        found = _signature_parameters(fn, target, name, what)
    else:  # every annotation of a plain function is in its type hints
        found = [(param_name, default, inspect.Parameter.empty) for param_name, default in plain]
    if hints is None:
        hints = _type_hints(target)
    raw_doc = target.__doc__
    # `parse_docstring` cleans the text itself; `inspect.getdoc` also looks up inherited docs.
    doc = parse_docstring(raw_doc if isinstance(raw_doc, str) else inspect.getdoc(target))
    params: list[Parameter] = []
    context_param = None
    for param_name, default, raw_annotation in found:
        annotation = hints.get(param_name, raw_annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        elif _is_context(annotation):
            context_param = param_name
            continue
        annotation, inline_doc = _split_annotated(annotation)
        params.append(Parameter(param_name, annotation, default, inline_doc or doc.params.get(param_name)))
    return params, context_param, doc.description


def _field_name(name: str, index: int) -> str:
    safe = name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")
    return name if safe and name not in _BASEMODEL_NAMES and not name.startswith("model_") else f"arg{index}_"


def _has_default(param: Parameter) -> bool:
    if isinstance(param.default, FieldInfo):
        return not param.default.is_required()
    return param.default is not ...


def build_model(
    tool_name: str, params: Iterable[Parameter], *, extra: str = "ignore", what: str = "tool"
) -> tuple[type[BaseModel], dict[str, str]]:
    """A pydantic model validating the parameters, and {field name: argument name} where they differ."""
    fields: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    for index, param in enumerate(params):
        annotation = param.annotation
        current = FieldInfo.from_annotated_attribute(annotation, param.default)
        extra_info: dict[str, Any] = {}
        if param.description and current.description is None:
            extra_info["description"] = param.description
        field_name = _field_name(param.name, index)
        if field_name != param.name:
            renamed[field_name] = param.name
            extra_info["alias"] = param.name
        if extra_info:
            annotation = Annotated[annotation, Field(**extra_info)]
        fields[field_name] = (annotation, param.default)
    config = ConfigDict(extra=extra, arbitrary_types_allowed=False)  # type: ignore[typeddict-item]
    try:
        model = create_model(f"{tool_name}_arguments", __config__=config, **fields)
    except Exception as error:
        raise TypeError(f"{what} {tool_name!r}: cannot build an argument schema: {error}") from None
    return model, renamed


def model_schema(tool_name: str, model: type[BaseModel]) -> dict[str, Any]:
    """The tool input schema of a model: by alias, without generated titles, always an object."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
            schema = model.model_json_schema(by_alias=True)
    except Exception as error:
        raise TypeError(f"tool {tool_name!r}: cannot describe the arguments as JSON Schema: {error}") from None
    return object_schema(prune_titles(schema))


def _input_schema_and_validator(
    tool_name: str, params: list[Parameter], hidden: frozenset[str]
) -> tuple[dict[str, Any], ModelValidator]:
    """The input schema and validator: for simple signatures the model waits for the first call."""
    schema = fast_input_schema(params)
    if schema is not None:
        return schema, LazyModelValidator(functools.partial(build_model, tool_name, params), forbidden=hidden)
    model, renamed = build_model(tool_name, params)
    return model_schema(tool_name, model), ModelValidator(model, names=renamed, forbidden=hidden)


def _infer_output_schema(fn: Callable[..., Any], hints: dict[str, Any] | None = None) -> dict[str, Any] | None:
    annotation = (_type_hints(_target(fn)) if hints is None else hints).get("return", Any)
    if isinstance(annotation, str):
        return None
    base = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
    if base in _NO_OUTPUT_SCHEMA or (isinstance(base, type) and issubclass(base, _NO_OUTPUT_SCHEMA[:3])):
        return None
    if base in (list, tuple, Sequence) or (get_origin(base) in (list, tuple, Sequence) and (
        not get_args(base) or any(arg in _NO_OUTPUT_SCHEMA for arg in get_args(base))
    )):
        return None  # an unconstrained list may hold content blocks: no schema it could not honour
    if _may_be_content(annotation):
        return None  # `Image | None`, `str | Image`, `list[str | Image]`: sent as content blocks
    try:
        return output_schema_for(annotation)
    except Exception:
        return None


def _may_be_content(annotation: Any) -> bool:
    """Whether a value of this type may be (or hold) content blocks or media anywhere inside it."""
    if isinstance(annotation, type) and issubclass(annotation, _SENT_AS_CONTENT):
        return True
    return any(_may_be_content(arg) for arg in get_args(annotation))


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
    tool_name = name or _callable_name(fn)
    hints = _type_hints(_target(fn))
    params, context_param, doc_description = _parameters(fn, tool_name, hints=hints)
    excluded = set(exclude_args)
    by_name = {param.name: param for param in params}
    for arg in excluded:
        if arg not in by_name:
            raise TypeError(f"tool {tool_name!r}: exclude_args names {arg!r}, which is not a parameter")
        if not _has_default(by_name[arg]):
            raise TypeError(f"tool {tool_name!r}: cannot exclude {arg!r}: it has no default to use instead")
    visible = [param for param in params if param.name not in excluded]
    hidden = frozenset(excluded)  # refused even with extra_args="ignore", like any hidden argument
    input_schema, validator = _input_schema_and_validator(tool_name, visible, hidden)
    returns: Any = None  # the annotation results are validated against, when the schema came from it
    if output_schema is INFER:
        output_schema = _infer_output_schema(fn, hints)
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
        run=_make_run(fn, context_param, run_in_thread, ResultConverter(output_schema, returns)),
        validator=validator,
        hidden=hidden,
        output_checked=returns is not None,
        origin=Origin("function", getattr(fn, "__module__", None) or "?", getattr(fn, "__qualname__", tool_name)),
        fn=fn,
    )
