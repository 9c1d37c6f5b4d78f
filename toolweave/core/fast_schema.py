"""The input schema of simple signatures, written directly instead of through a pydantic model.

Most tools take strings, numbers, flags, lists and string-keyed dicts of those, optional values
and string or integer choices. For such a signature this module writes the very JSON Schema
that `model_schema(build_model(...))` produces (pydantic's keyword order included) in a few
microseconds, so a function tool can be registered without building its pydantic model; the
model is built when the tool is first called (`LazyModelValidator`). Anything else (models,
dataclasses, enums, constraints, `Field(...)`, non-JSON defaults) returns `None`, and the caller
builds the model at once, as before. `tests/core/test_fast_schema.py` checks the two agree.

Schemas are JSON data that nothing edits in place (transforms copy what they change), so the
schema of a bare type (`{"type": "string"}`), and of the common generic ones (`list[str]`,
`str | None`, `Literal["asc", "desc"]`), is one object shared by every property that has
neither a default nor a description, and by the properties that do: thousands of tools do not
each hold their own copy.

Example:
    >>> from toolweave.core.reading import Parameter
    >>> schema = fast_input_schema([Parameter("q", str, ..., "the query"), Parameter("n", int, 5, None)])
    >>> schema["properties"], schema["required"]
    ({'q': {'description': 'the query', 'type': 'string'}, 'n': {'default': 5, 'type': 'integer'}}, ['q'])
"""

from __future__ import annotations

import math
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, Union

from toolweave.core.memo import Memo
from toolweave.core.plain_signature import ANNOTATED

if TYPE_CHECKING:
    from toolweave.core.reading import Parameter

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
}
_ANY_LIST: dict[str, Any] = {"items": {}, "type": "array"}
_ANY_DICT: dict[str, Any] = {"additionalProperties": True, "type": "object"}
_ANYTHING: dict[str, Any] = {}
_JSON_DEFAULTS = (str, int, bool, type(None))
_UNIONS = (Union, types.UnionType)


def _literal(values: tuple[Any, ...]) -> dict[str, Any] | None:
    kinds = {type(value) for value in values}
    if kinds == {str}:
        kind = "string"
    elif kinds == {int}:
        kind = "integer"
    else:
        return None
    if len(values) == 1:
        return {"const": values[0], "type": kind}
    return {"enum": list(values), "type": kind}


def _has_equal_pair(items: list[Any]) -> bool:
    return any(items[i] == items[j] for i in range(len(items)) for j in range(i + 1, len(items)))


def _type_schema(annotation: Any) -> dict[str, Any] | None:
    """The schema of one annotation (sorted keys, as pydantic writes them), or `None`; possibly
    shared with other properties: never edit it in place."""
    if type(annotation) is type:  # a plain class (hashing typing constructs is slow: skip them)
        scalar = _SCALARS.get(annotation)
        if scalar is not None:
            return scalar
        if annotation is list:
            return _ANY_LIST
        if annotation is dict:
            return _ANY_DICT
        return None
    if annotation is Any:
        return _ANYTHING
    shape = _shape(annotation)
    if shape is None:
        return None
    origin, args = shape
    key = _sharing_key(origin, args)
    if key is None:
        return _generic_schema(origin, args)
    return _SHARED.get(key, _generic_schema, origin, args)


def _shape(annotation: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """`(get_origin(annotation), get_args(annotation))` for the generic shapes this module writes
    (lists, dicts, literals, unions), read from the annotation's own attributes (`typing`'s
    functions cost more than the rest of a property); `None` for any other annotation."""
    if type(annotation) is types.UnionType:
        return types.UnionType, annotation.__args__
    if type(annotation) is ANNOTATED:
        return None
    origin = getattr(annotation, "__origin__", None)
    if not (origin is list or origin is dict or origin is Literal or origin is Union):
        return None
    args = getattr(annotation, "__args__", ())
    return origin, args if type(args) is tuple else ()


_SHARED: Memo[dict[str, Any] | None] = Memo(limit=4096)


def _sharing_key(origin: Any, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """A key equal only for annotations whose schemas are equal, their order included; `None` for
    any but the common `list[str]`, `dict[str, int]`, `str | None`, `Literal["a", "b"]` shapes.

    (Typing compares unions and literals regardless of order, but their schemas keep it, so the
    annotation itself is not a key; a tuple of plain classes compared by identity is.)
    """
    if origin is Literal:
        return (origin, args, tuple(map(type, args)))
    for arg in args:
        if type(arg) is not type:
            return None
    return (origin, args)


def _generic_schema(origin: Any, args: tuple[Any, ...]) -> dict[str, Any] | None:
    if origin is list and len(args) == 1:
        items = _type_schema(args[0])
        return None if items is None else {"items": items, "type": "array"}
    if origin is dict and len(args) == 2 and args[0] is str:
        if args[1] is Any:
            return _ANY_DICT
        values = _type_schema(args[1])
        return None if values is None else {"additionalProperties": values, "type": "object"}
    if origin is Literal:
        return _literal(args)
    if origin in _UNIONS:
        if Any in args:
            return None
        members = [_type_schema(arg) for arg in args]
        if any(member is None for member in members) or _has_equal_pair(members):
            return None  # (pydantic may merge members that describe alike, e.g. list[str] | List[str])
        return {"anyOf": members}
    return None


def json_default(value: Any) -> bool:
    """Whether a parameter default is JSON the schema can carry as is (a finite number, a string,
    a flag or null)."""
    if type(value) is float:
        return math.isfinite(value)
    return type(value) in _JSON_DEFAULTS


_FITS: dict[Any, tuple[type, ...]] = {
    str: (str,), int: (int,), float: (int, float), bool: (bool,), type(None): (type(None),),
    list: (list,), dict: (dict,),
}  # fmt: skip
"""The classes of the values each plain class takes as they are (`bool` is no `int` here, as in JSON)."""


def default_fits(default: Any, annotation: Any) -> bool:
    """Whether a JSON default (see `json_default`) is a value of a `describable` annotation, checked
    without pydantic (registration asks it of every default); `True` for annotations this module
    does not describe (pydantic's model checks those, or nothing does).

    Example:
        >>> default_fits(3, int), default_fits("three", int), default_fits(None, str | None)
        (True, False, True)
        >>> default_fits("desc", Literal["asc", "desc"]), default_fits(None, str), default_fits(True, int)
        (True, False, False)
    """
    kind = type(annotation)
    if kind is type:
        allowed = _FITS.get(annotation)
        return allowed is None or type(default) in allowed
    if kind is types.UnionType:  # (the commonest generic shape, `str | None`, without a call)
        return _fits_one_of(default, annotation.__args__)
    if annotation is Any:
        return True
    shape = _shape(annotation)
    if shape is None:
        return True
    origin, args = shape
    if origin is Literal:
        return any(type(default) is type(value) and default == value for value in args)
    if origin in _UNIONS:
        return _fits_one_of(default, args)
    return False  # a list or dict: no JSON scalar default is one


def _fits_one_of(default: Any, members: tuple[Any, ...]) -> bool:
    for member in members:  # noqa: SIM110 - a loop: `any(...)` of a generator costs more, asked per default
        if default_fits(default, member):
            return True
    return False


def describable(annotation: Any) -> bool:
    """Whether every type in `annotation` is one this module writes a schema for, checked without
    building one (registration asks this of every parameter; the schema waits for the listing).

    Where it answers yes, pydantic can describe the annotation too: a union whose members
    describe alike (which `fast_input_schema` leaves to pydantic) is the only case it accepts
    that the direct writer does not.

    Example:
        >>> describable(list[str] | None), describable(list[complex])
        (True, False)
    """
    kind = type(annotation)
    if kind is type:
        return annotation in _SCALARS or annotation is list or annotation is dict
    if annotation is Any:
        return True
    if kind is types.UnionType:  # (the commonest generic shape, `str | None`, without a call)
        return _describable_union(annotation.__args__)
    shape = _shape(annotation)
    if shape is None:
        return False
    origin, args = shape
    if origin is list:
        return len(args) == 1 and describable(args[0])
    if origin is dict:
        return len(args) == 2 and args[0] is str and describable(args[1])
    if origin is Literal:
        return _literal(args) is not None
    return _describable_union(args)  # (a union: `_shape` knows no other origin)


def _describable_union(args: tuple[Any, ...]) -> bool:
    return Any not in args and all(describable(arg) for arg in args)


def _with(schema: dict[str, Any], extra: list[tuple[str, Any]]) -> dict[str, Any]:
    """`schema` with `extra` keys, all in sorted order (as pydantic writes them)."""
    if len(schema) == 1 and "type" in schema:  # a scalar: `default` and `description` sort before `type`
        return {**dict(extra), "type": schema["type"]}
    return dict(sorted([*schema.items(), *extra]))


def fast_input_schema(params: Iterable[Parameter]) -> dict[str, Any] | None:
    """The tool input schema of `params`, or `None` when a parameter needs pydantic to describe it."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in params:
        schema = _type_schema(param.annotation)
        if schema is None:
            return None
        extra: list[tuple[str, Any]] = []
        if param.default is ...:
            required.append(param.name)
        elif json_default(param.default):
            extra.append(("default", param.default))
        else:
            return None
        if param.description:
            extra.append(("description", param.description))
        properties[param.name] = _with(schema, extra) if extra else schema
    out: dict[str, Any] = {"properties": properties}
    if required:
        out["required"] = required
    out["type"] = "object"
    return out
