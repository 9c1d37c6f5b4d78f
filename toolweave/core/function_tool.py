"""Build a `Tool` from a Python function: schema from the signature, description from the docstring.

A plain function whose parameters all have types the direct schema writer knows (strings,
numbers, flags, lists, string-keyed dicts, optionals and choices of those, with JSON defaults)
is read lazily: building its tool takes the name and the options and decides everything that
could fail (its parameter kinds, its types, its defaults, its return type), and a
`FunctionTool` reads its docstring and writes its input schema the first time the description
or the schema is needed (the tool is listed, explained or transformed), and makes its invoker
and validator on its first call. Any other callable is read at once, as before.

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
from dataclasses import MISSING, fields
from typing import Any

from pydantic import BaseModel

from toolweave.core.context import Context
from toolweave.core.fast_schema import describable, fast_input_schema, json_default
from toolweave.core.invoke import make_invoker
from toolweave.core.names import check_text, name_set
from toolweave.core.plain_signature import plain_names, plain_type_hints, settled
from toolweave.core.reading import (
    Parameter,
    build_model,
    callable_name,
    check_defaults,
    described,
    fits_its_type,
    has_default,
    is_context,
    model_schema,
    parameters,
    split_annotated,
    target,
    type_hints,
)
from toolweave.core.result import ResultConverter
from toolweave.core.returns import infer_output_schema, returned_schema, returned_type
from toolweave.core.schema import check_output_schema
from toolweave.core.tool import Origin, TaskSupport, Tool, ToolAnnotations, settle_fields
from toolweave.core.validation import LazyModelValidator, ModelValidator

INFER: Any = object()
"""Default of `output_schema=`: infer it from the return annotation."""

_NO_TAGS: frozenset[str] = frozenset()
_CONTEXT = {"Context": Context}  # `Context` resolves even where the module imported it locally


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
    task_support: TaskSupport = "none",
) -> Tool:
    """A `Tool` that calls `fn`.

    Args:
        fn: A sync or async function (or callable object) with named parameters.
        name: The tool name; defaults to the function's name.
        title: A human-readable title.
        description: Defaults to the docstring text above its `Args:` section.
        tags: Labels for selecting tools (transforms, middleware, enable/disable): a list or set
            of strings (a single string is a `TypeError`, not a set of its characters).
        annotations: `ToolAnnotations` or a dict of hints (`readOnlyHint`, ...).
        meta: Static `_meta` sent with the tool definition.
        exclude_args: Names of parameters to leave out of the schema (a list or set; a single
            string is a `TypeError`); each must have a default.
        output_schema: An explicit output schema (a JSON Schema with `type: object` at the
            top, as MCP requires), `None` for none, or inferred by default.
        enabled: Whether the tool starts enabled.
        run_in_thread: Run a sync function in a worker thread (default) or inline.
        task_support: Whether calls may run as MCP tasks: `"none"`, `"optional"`, `"required"`.

    Raises:
        TypeError: for `*args`/`**kwargs`, positional-only parameters, a lambda without a name,
            an excluded argument that does not exist or has no default, unschematisable types,
            a default that is not a value of its parameter's type (`n: int = "three"`), or an
            `output_schema` that is not a JSON Schema of an object.
    """
    tool_name = name or callable_name(fn)
    check_text(description, "description", "tool", tool_name)
    known: dict[str, Any] = {"description": description} if description is not None else {}
    known.update(
        name=tool_name,
        title=title,
        annotations=ToolAnnotations.coerce(annotations),
        tags=name_set(tags, "tags", "tool", tool_name) if tags else _NO_TAGS,
        meta=dict(meta) if meta else None,
        enabled=enabled,
        fn=fn,
        task_support=task_support,
    )
    if output_schema is not INFER and output_schema is not None:
        check_output_schema(output_schema, tool_name)
    hints = None if exclude_args else readable_later(fn)
    if hints is None:
        return _read_now(fn, known, exclude_args, output_schema, run_in_thread)
    if output_schema is INFER:
        output_schema = returned_schema(returned_type(hints))
        known["output_checked"] = output_schema is not None
    known["output_schema"] = output_schema
    own_hints = hints if hints is getattr(fn, "__annotations__", None) else None  # resolved as they are
    return FunctionTool.reading(known, own_hints, run_in_thread)


def _read_now(
    fn: Callable[..., Any],
    known: dict[str, Any],
    exclude_args: Iterable[str],
    output_schema: Mapping[str, Any] | None,
    run_in_thread: bool,
) -> Tool:
    """The tool of any callable, its signature, docstring and schemas read now."""
    tool_name = known["name"]
    hints = type_hints(target(fn))
    params, context_param, doc_description = parameters(fn, tool_name, hints=hints)
    check_defaults(params, tool_name)
    excluded = name_set(exclude_args, "exclude_args", "tool", tool_name)
    by_name = {param.name: param for param in params}
    for arg in excluded:
        if arg not in by_name:
            raise TypeError(f"tool {tool_name!r}: exclude_args names {arg!r}, which is not a parameter")
        if not has_default(by_name[arg]):
            raise TypeError(f"tool {tool_name!r}: cannot exclude {arg!r}: it has no default to use instead")
    visible = [param for param in params if param.name not in excluded] if excluded else params
    hidden = excluded or _NO_TAGS  # refused even with extra_args="ignore"
    input_schema, validator = _input_schema_and_validator(fn, tool_name, visible, hidden)
    returns: Any = None  # the annotation results are validated against, when the schema came from it
    if output_schema is INFER:
        output_schema = infer_output_schema(fn, hints)
        if output_schema is not None:
            returns = returned_type(hints)
    convert = ResultConverter.shared(output_schema, returns)
    return Tool(
        **{"description": doc_description, **known},
        input_schema=input_schema,
        output_schema=output_schema,
        run=make_invoker(fn, context_param, run_in_thread=run_in_thread, convert=convert),
        validator=validator,
        hidden=hidden,
        output_checked=returns is not None,
        origin=_origin(fn, tool_name),
    )


def _origin(fn: Callable[..., Any], tool_name: str) -> Origin:
    fn = described(fn)
    return Origin("function", getattr(fn, "__module__", None) or "?", getattr(fn, "__qualname__", tool_name))


def readable_later(fn: Callable[..., Any]) -> Mapping[str, Any] | None:
    """The type hints of `fn` if reading it can wait, else `None` (it is read at once).

    It can wait for a plain function with named parameters only, whose every parameter the
    direct schema writer can describe (or is the `Context`) with a JSON default of its type if
    any (a default that is not of its type is refused by the reading done at once): reading
    it later cannot fail, so every error a function can cause is still raised at registration.
    Annotations without forward references are their own type hints (no copy is made).

    Example:
        >>> def search(q: str, limit: int = 10) -> list[str]: ...
        >>> def load(path: complex) -> str: ...
        >>> readable_later(search) is not None, readable_later(load)
        (True, None)
    """
    names = plain_names(fn)
    if names is None or names[:1] == ("self",):  # (a method from its class body: refused at once)
        return None
    hints: Mapping[str, Any] | None = fn.__annotations__
    assert hints is not None
    returns = hints.get("return", Any)
    if returns is None or not (type(returns) is type or settled(returns)) or not _describable(names, hints):
        # (string annotations, forward references, `None` for `NoneType`: resolved, checked again)
        hints = plain_type_hints(fn, _CONTEXT)
        if hints is None or not _describable(names, hints):
            return None
    return hints if _fitting_json_defaults(fn, names, hints) else None


def _describable(names: tuple[str, ...], hints: Mapping[str, Any]) -> bool:
    """Whether the direct schema writer describes every parameter (the one `Context` aside: a
    second is refused by the reading done at once)."""
    contexts = 0
    for param_name in names:
        annotation = hints.get(param_name, Any)
        if describable(annotation):
            continue
        if is_context(annotation):
            contexts += 1
            if contexts > 1:
                return False
            continue
        base, inline_doc = split_annotated(annotation)
        if inline_doc is None or not describable(base):
            return False
    return True


def _fitting_json_defaults(fn: Any, names: tuple[str, ...], hints: Mapping[str, Any]) -> bool:
    """Whether every default of `fn` is JSON a schema can carry and a value of its parameter's
    type (one that is not is read at once, and refused there by `check_defaults`)."""
    defaults = fn.__defaults__
    if defaults:
        positional = fn.__code__.co_argcount
        for param_name, default in zip(names[positional - len(defaults) : positional], defaults, strict=True):
            if not _fitting_json(default, hints.get(param_name, Any)):
                return False
    keyword = fn.__kwdefaults__
    if keyword:
        for param_name, default in keyword.items():
            if not _fitting_json(default, hints.get(param_name, Any)):
                return False
    return True


def _fitting_json(default: Any, annotation: Any) -> bool:
    """Whether `default` is JSON and `fits_its_type` (the commonest cases answered first, inline)."""
    kind = type(default)
    if kind is annotation and (kind is int or kind is str or kind is bool):  # (`limit: int = 10`: no call)
        return True
    if default is None:  # (any type: the implicit Optional, see `fits_its_type`)
        return True
    return json_default(default) and fits_its_type(default, annotation)


_SET = object.__setattr__
_READ = object.__getattribute__


class FunctionTool(Tool):
    """A `Tool` made from a plain function, read the first time anything needs what reading gives.

    Until then the fields reading fills are unset slots, and the first read of one falls through
    to `__getattr__` (as in `LazyModelValidator`): `description` (unless given) and
    `input_schema` read the docstring and write the schema (a listing); `origin` names the
    function; `run` and `validator` (its first call) read everything left and make the invoker
    and the (itself lazy) validator. After that they are plain slot reads, and the tool, now
    complete, changes to a class without `__getattr__` (same slots), since CPython does not
    specialise attribute reads on a class that has one: the call path reads a called tool as
    fast as any `Tool`. `replace` of fields the tool was registered with (`enabled`, `tags`,
    `task_support`, ...) keeps it unread; any other change (a transform's) reads it and makes an
    ordinary `Tool`.

    Example:
        >>> def search(query: str, limit: int = 10) -> str:
        ...     '''Search the index.'''
        ...     return query
        >>> tool = Tool.from_function(search)
        >>> tool.read, tool.replace(enabled=False).read
        (False, False)
        >>> tool.description, tool.read
        ('Search the index.', True)
    """

    __slots__ = ("_hints", "_in_thread")
    _hints: Mapping[str, Any] | None  # the function's own annotations, when they are its type hints
    _in_thread: bool

    def __new__(cls, *args: Any, **changes: Any) -> Any:
        if args or changes:  # `dataclasses.replace` of a read tool: an ordinary `Tool`
            return Tool(*args, **changes)
        return super().__new__(cls)

    @classmethod
    def reading(cls, known: Mapping[str, Any], hints: Mapping[str, Any] | None, run_in_thread: bool) -> FunctionTool:
        """An unread tool with the fields registration knows (`known`, see `tool_from_function`),
        `Tool`'s defaults for the others reading does not fill, and the function's own
        annotations if they are its type hints."""
        tool = object.__new__(_Unread)
        for field, value in (*_UNREAD_DEFAULTS.items(), *known.items()):
            _SET(tool, field, value)
        _SET(tool, "_hints", hints)
        _SET(tool, "_in_thread", run_in_thread)
        settle_fields(tool)
        return tool

    def replace(self, **changes: Any) -> Tool:
        """A copy with some fields changed: still unread if only registration's fields change."""
        if not _KEEPS_UNREAD.issuperset(changes):
            return super().replace(**changes)
        copy = object.__new__(type(self))
        for slot in _SLOTS:
            try:
                _SET(copy, slot, changes[slot] if slot in changes else _READ(self, slot))
            except AttributeError:  # not read yet: the copy reads it when needed
                continue
        settle_fields(copy)
        return copy

    @property
    def read(self) -> bool:
        """Whether the docstring and the input schema have been read."""
        return self._filled("input_schema")

    @property
    def prepared(self) -> bool:
        """Whether the invoker and the validator have been made (its first call, or a read of `run`)."""
        return self._filled("run")

    def _filled(self, slot: str) -> bool:
        try:
            _READ(self, slot)
        except AttributeError:
            return False
        return True

    def _read_listing(self) -> None:
        """Read the docstring and write the input schema."""
        fn, name = self.fn, self.name
        assert fn is not None
        params, _, doc_description = parameters(fn, name, hints=self._type_hints())
        schema = fast_input_schema(params)
        if schema is None:  # a union whose members describe alike: pydantic merges them
            schema = model_schema(name, build_model(name, params)[0])
        _SET(self, "input_schema", schema)
        try:
            _READ(self, "description")
        except AttributeError:
            _SET(self, "description", doc_description)

    def _read_for_call(self) -> None:
        """Read what is left (a called tool is read whole, once) and make the invoker and the validator."""
        if not self._filled("input_schema"):
            self._read_listing()
        if not self._filled("origin"):
            self._read_origin()
        fn, name = self.fn, self.name
        assert fn is not None
        hints = self._type_hints()
        context_param = next((key for key, hint in hints.items() if key != "return" and is_context(hint)), None)
        returns = returned_type(hints) if self.output_checked else None
        convert = ResultConverter.shared(self.output_schema, returns)
        _SET(self, "run", make_invoker(fn, context_param, run_in_thread=self._in_thread, convert=convert))
        _SET(self, "validator", _ModelWhenCalled(fn, name, self.hidden))
        _SET(self, "__class__", _Read)  # read whole: plain slot reads from now on

    def _type_hints(self) -> Mapping[str, Any]:
        """The function's type hints: its annotations themselves where registration found them
        resolved (no copy, no second look), else resolved now."""
        hints: Mapping[str, Any] | None = self._hints
        if hints is None:
            assert self.fn is not None
            hints = type_hints(self.fn)
        return hints

    def _read_origin(self) -> None:
        assert self.fn is not None
        _SET(self, "origin", _origin(self.fn, self.name))


class _Unread(FunctionTool):
    """A function tool with fields still to read: `__getattr__` reads them."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: a field not read yet, or a probe for an
        # attribute no tool has.
        fill = _FILLS.get(name)
        if fill is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        try:
            fill(self)
        except AttributeError as error:  # (inside `__getattr__` it would read as "no such field")
            raise TypeError(f"tool {_READ(self, 'name')!r}: cannot read its function: {error}") from error
        return _READ(self, name)


class _Read(FunctionTool):
    """A function tool read whole: an ordinary `Tool` with the function tool's two slots."""

    __slots__ = ()


_FILLS: dict[str, Callable[[FunctionTool], None]] = {
    "description": FunctionTool._read_listing,
    "input_schema": FunctionTool._read_listing,
    "origin": FunctionTool._read_origin,
    "run": FunctionTool._read_for_call,
    "validator": FunctionTool._read_for_call,
}
_SLOTS = (*(item.name for item in fields(Tool)), "_hints", "_in_thread")
_UNREAD_DEFAULTS = {
    item.name: item.default for item in fields(Tool) if item.default is not MISSING and item.name not in _FILLS
}
"""A new unread tool's fields besides what registration knows: `Tool`'s own defaults."""
_KEEPS_UNREAD = frozenset(  # what reading does not depend on (`fn`, `hidden`, the output schema: it does)
    {"name", "title", "annotations", "tags", "meta", "enabled", "error_policy", "varies_with", "access"}
    | {"task_support", "parent", "transforms"}
)
