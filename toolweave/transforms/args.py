"""`TransformArgs` and `Arg`: rename, redescribe, re-default, retype, hide and reorder arguments.

Example:
    >>> from toolweave import Tool
    >>> def search(q: str, n: int = 10, debug: bool = False) -> list[str]:
    ...     return [q] * n
    >>> tool = Tool.from_function(search).with_transforms(TransformArgs({
    ...     "q": Arg(name="query", description="What to look for"),
    ...     "n": Arg(name="limit", default=5),
    ...     "debug": Arg(hide=True),
    ... }))
    >>> tool.input_schema["properties"]["query"], tool.input_schema["properties"]["limit"]
    ({'description': 'What to look for', 'type': 'string'}, {'default': 5, 'type': 'integer'})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from types import MappingProxyType
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from toolweave.core.errors import TransformError
from toolweave.core.schema import json_types
from toolweave.core.tool import Tool
from toolweave.core.validation import ArgumentErrors, pydantic_problems
from toolweave.transforms.argmap import Coerce
from toolweave.transforms.plan import Fill, fixed_value, remap, require_args, where
from toolweave.transforms.signature import NOT_SET, ArgSpec, Signature, with_changes

_LAX = ConfigDict(coerce_numbers_to_str=True)


@dataclass(frozen=True)
class Arg:
    """How one argument changes. Every option left out keeps the parent's.

    Attributes:
        name: The new exposed name.
        description: The new description (`None` removes it).
        default: A new default (the argument becomes optional), or the hidden value with `hide`.
        default_factory: With `hide=True`: a zero-argument callable called on every call.
        type: A new exposed type; the client's value is validated as this type, then converted to
            the parent's type (a value that cannot be converted is an invalid argument).
        examples: Example values shown in the schema.
        hide: Remove the argument from the schema; it gets `default`, `default_factory` or the
            parent's default.
        required: `True` makes an optional argument required (its default is dropped).

    Example:
        >>> Arg(name="query", description="Search terms")
        Arg(name='query', description='Search terms')
    """

    name: Any = NOT_SET
    _: KW_ONLY
    description: Any = NOT_SET
    default: Any = NOT_SET
    default_factory: Callable[[], Any] | None = None
    type: Any = NOT_SET
    examples: Any = NOT_SET
    hide: bool = False
    required: Any = NOT_SET

    def __post_init__(self) -> None:
        if self.name is not NOT_SET and not (isinstance(self.name, str) and self.name):
            raise ValueError(f"Arg: name is the argument's new name (text), not {self.name!r}")
        if self.default is not NOT_SET and self.default_factory is not None:
            raise ValueError("Arg: give default or default_factory, not both")
        if self.default_factory is not None and not self.hide:
            raise ValueError("Arg: default_factory is for hidden arguments (hide=True); use default= otherwise")
        if self.required not in (NOT_SET, True):
            raise ValueError("Arg: required accepts only True (to make an optional argument required)")
        if self.required is True and (self.default is not NOT_SET or self.hide):
            raise ValueError("Arg: a required argument can have neither a default nor hide=True")
        if self.hide and (self.name is not NOT_SET or self.type is not NOT_SET or self.examples is not NOT_SET):
            raise ValueError("Arg: a hidden argument cannot also be renamed, retyped or given examples")

    def __repr__(self) -> str:  # a hidden default may be a secret: never shown
        parts = []
        for key in ("name", "description", "default", "type", "examples", "hide", "required"):
            value = getattr(self, key)
            if value is NOT_SET or (key == "hide" and not value):
                continue
            shown = "<hidden>" if key == "default" and self.hide else repr(value)
            parts.append(f"{key}={shown}")
        if self.default_factory is not None:
            parts.append("default_factory=...")
        return f"Arg({', '.join(parts)})"


def _to_parent_type(annotation: Any) -> Coerce:
    adapter = TypeAdapter(annotation, config=_LAX) if _configurable(annotation) else TypeAdapter(annotation)
    validate = adapter.validate_python

    def coerce(value: Any) -> Any:
        try:
            return validate(value)
        except ValidationError:
            pass
        try:
            return validate(to_jsonable_python(value))
        except ValidationError as error:
            raise ArgumentErrors(pydantic_problems(error)) from None

    return coerce


def _configurable(annotation: Any) -> bool:
    try:
        TypeAdapter(annotation, config=_LAX)
    except Exception:
        return False
    return True


def _to_json_via(annotation: Any) -> Coerce:
    validate = TypeAdapter(annotation).validate_python

    def coerce(value: Any) -> Any:
        try:
            return to_jsonable_python(validate(value))
        except ValidationError as error:
            raise ArgumentErrors(pydantic_problems(error)) from None

    return coerce


_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def _fits(value: Any, target: type) -> bool:
    if target is float:
        return type(value) in (int, float)
    return type(value) is target


def _to_parent_json(prop: Mapping[str, Any]) -> Coerce | None:
    """For schema tools: a value converted to the parent property's JSON type (simple types only).

    A value that already has one of the accepted types passes; otherwise each accepted simple
    type is tried in order. Properties with no simple type (objects, arrays, refs) pass through.
    """
    kinds = json_types(prop)
    if not kinds or any(kind not in _JSON_TYPES for kind in kinds):
        return None
    targets = [_JSON_TYPES[kind] for kind in kinds]
    validators = [TypeAdapter(t, config=_LAX).validate_python for t in targets if t is not type(None)]

    def coerce(value: Any) -> Any:
        if any(_fits(value, target) for target in targets):
            return value
        error: ValidationError | None = None
        for validate in validators:
            try:
                return validate(value)
            except ValidationError as failed:
                error = error or failed
        raise ArgumentErrors(pydantic_problems(error) if error else [])

    return coerce


def _examples(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


@dataclass(frozen=True, init=False)
class TransformArgs:
    """Change several arguments at once; `order` puts the named (exposed) arguments first.

    Example:
        >>> TransformArgs({"q": "query"}).describe()   # a plain string renames
        "arguments: q → Arg(name='query')"
    """

    args: Mapping[str, Arg]
    order: tuple[str, ...] | None

    def __init__(self, args: Mapping[str, Arg | str], *, order: Sequence[str] | None = None) -> None:
        coerced = {name: Arg(name=arg) if isinstance(arg, str) else arg for name, arg in args.items()}
        for name, arg in coerced.items():
            if not isinstance(arg, Arg):
                raise TypeError(f"TransformArgs: the change for {name!r} must be an Arg or a new name, not {arg!r}")
        object.__setattr__(self, "args", MappingProxyType(coerced))
        object.__setattr__(self, "order", tuple(order) if order is not None else None)

    def __repr__(self) -> str:
        return f"TransformArgs({dict(self.args)!r}" + (f", order={list(self.order)!r})" if self.order else ")")

    def describe(self) -> str:
        """How `explain` shows this transform."""
        changes = ", ".join(f"{name} → {arg!r}" for name, arg in self.args.items())
        return f"arguments: {changes}" + (f"; order {list(self.order)}" if self.order else "")

    def apply(self, tool: Tool) -> Tool:
        """`tool` with its arguments changed; `TransformError` for an `Arg` that does not fit."""
        sig = Signature.of(tool)
        require_args(tool, sig, self.args, "TransformArgs")
        visible: list[tuple[str, ArgSpec]] = []
        fills: dict[str, Fill] = {}
        coercions: dict[str, tuple[Coerce, ...]] = {}
        for spec in sig.args:
            change = self.args.get(spec.name)
            if change is None:
                visible.append((spec.name, spec))
            elif change.hide:
                fills[spec.name] = _hidden_fill(change)
            else:
                new = _changed(tool, spec, change)
                if change.type is not NOT_SET:
                    coercions[new.name] = _retype(sig, spec, change.type)
                visible.append((spec.name, new))
        return remap(tool, self, sig, self._ordered(tool, visible), fills, coercions)

    def _ordered(self, tool: Tool, visible: list[tuple[str, ArgSpec]]) -> list[tuple[str, ArgSpec]]:
        if not self.order:
            return visible
        by_name = {spec.name: (current, spec) for current, spec in visible}
        for name in self.order:
            if name not in by_name:
                raise TransformError(f"{where(tool, name)}: order names an argument the new tool does not expose")
        first = [by_name[name] for name in self.order]
        return first + [pair for pair in visible if pair[1].name not in self.order]


def _retype(sig: Signature, spec: ArgSpec, new_type: Any) -> tuple[Coerce, ...]:
    """Converters from the new exposed type to the parent's (its Python type, or its JSON type)."""
    if sig.kind == "model":
        return (_to_parent_type(spec.annotation),)
    to_parent = _to_parent_json(spec.schema)
    return (_to_json_via(new_type),) + ((to_parent,) if to_parent is not None else ())


def _hidden_fill(change: Arg) -> Fill:
    if change.default is not NOT_SET:
        return Fill("constant", change.default)
    if change.default_factory is not None:
        return Fill("factory", change.default_factory)
    return Fill("default")


def _changed(tool: Tool, spec: ArgSpec, change: Arg) -> ArgSpec:
    """The new exposed spec of a visible argument (a new default checked against the type it is
    exposed with, and converted to it)."""
    schema = dict(spec.schema)
    changes: dict[str, Any] = {}
    if change.type is not NOT_SET:
        schema = {k: schema[k] for k in ("description", "examples", "default") if k in schema}
        changes["annotation"] = change.type
    if change.name is not NOT_SET:
        changes["name"] = change.name
    if change.description is None:
        schema.pop("description", None)
    elif change.description is not NOT_SET:
        schema["description"] = change.description
    if change.examples is not NOT_SET:
        schema["examples"] = _examples(change.examples)
    if change.default is not NOT_SET:
        exposed = with_changes(spec, annotation=changes.get("annotation", spec.annotation))
        default = fixed_value(tool, exposed, change.default, "default")
        schema["default"] = to_jsonable_python(default)
        changes.update(default=default, default_factory=None, required=False)
    if change.required is True:
        schema.pop("default", None)
        changes.update(default=NOT_SET, default_factory=None, required=True)
    return with_changes(spec, schema=schema, **changes)
