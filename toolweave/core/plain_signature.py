"""Read a plain function's parameters and type hints directly (what `inspect.signature` and
`typing.get_type_hints` find).

`inspect.signature` is general (wrappers, partials, `__signature__`, builtins) and costs ~10 µs;
registering thousands of tools pays that for every one. For a plain Python function with
named parameters only, the names and defaults sit in `__code__`, `__defaults__` and
`__kwdefaults__`. Anything else returns `None` and the caller uses `inspect.signature`, which
also produces the errors for `*args`, `**kwargs` and positional-only parameters.

Likewise `typing.get_type_hints` rebuilds every annotation to resolve forward references; when
an annotation holds none (no strings, no `ForwardRef`), it is its own resolution.

Example:
    >>> def f(a, b=2, *, c=3): ...
    >>> plain_parameters(f)
    [('a', Ellipsis), ('b', 2), ('c', 3)]
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, ForwardRef, Literal, get_origin

_UNSUPPORTED_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_ABSENT: Any = object()


def plain_names(fn: Callable[..., Any]) -> tuple[str, ...] | None:
    """The parameter names of a plain function with named parameters only, else `None`."""
    if type(fn) is not types.FunctionType:
        return None
    # (attribute look-ups, not `fn.__dict__`: reading that gives every function a dict of its own)
    if getattr(fn, "__wrapped__", _ABSENT) is not _ABSENT or getattr(fn, "__signature__", _ABSENT) is not _ABSENT:
        return None
    code = fn.__code__
    if code.co_flags & _UNSUPPORTED_FLAGS or code.co_posonlyargcount:
        return None
    return code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]


def plain_parameters(fn: Callable[..., Any]) -> list[tuple[str, Any]] | None:
    """`[(name, default or ...)]` of a plain function with named parameters only, else `None`."""
    names = plain_names(fn)
    if names is None:
        return None
    positional = fn.__code__.co_argcount
    found: list[tuple[str, Any]] = [(name, ...) for name in names]
    defaults = fn.__defaults__
    if defaults:
        first = positional - len(defaults)
        for offset, value in enumerate(defaults):
            found[first + offset] = (names[first + offset], value)
    keyword_defaults = fn.__kwdefaults__
    if keyword_defaults:
        for index in range(positional, len(names)):
            if names[index] in keyword_defaults:
                found[index] = (names[index], keyword_defaults[names[index]])
    return found


ANNOTATED = type(typing.Annotated[int, ""])
"""The class of every `Annotated[...]` form (a `type(...) is ANNOTATED` test is the cheapest there is)."""
_GENERIC_KINDS = (types.GenericAlias, types.UnionType, type(typing.List[int]))  # noqa: UP006 - typing._GenericAlias


def settled(annotation: Any) -> bool:
    """Whether `typing.get_type_hints` would give back `annotation` (or an equal rebuild) as is."""
    if type(annotation) is type:
        return True
    if isinstance(annotation, str | ForwardRef):
        return False
    if isinstance(annotation, _GENERIC_KINDS):
        args: tuple[Any, ...] = getattr(annotation, "__args__", ())
        return get_origin(annotation) is Literal or all(settled(arg) for arg in args)
    return True


_FORWARD_REFS: dict[tuple[str, int], ForwardRef] = {}
_eval_type: Any = getattr(typing, "_eval_type")  # noqa: B009 - typing's own resolver, as get_type_hints uses it


def _forward_ref(text: str, namespace: dict[str, Any]) -> ForwardRef:
    """A `ForwardRef` for `text`, made once per module: making one compiles the text (~10 µs).

    It is evaluated afresh on every use (the local namespace given is never the module's), so
    sharing it changes nothing but the cost.
    """
    key = (text, id(namespace))
    ref = _FORWARD_REFS.get(key)
    if ref is None:
        ref = _FORWARD_REFS[key] = ForwardRef(text, is_argument=True, is_class=False)
    return ref


def plain_type_hints(fn: Callable[..., Any], localns: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """`typing.get_type_hints(fn, localns=localns, include_extras=True)` of a plain function, done
    the same way but cheaper: annotations that hold no forward reference are kept as they are,
    and string annotations reuse one `ForwardRef` per module. `None` for anything else, or when
    an annotation does not resolve (then ask `typing.get_type_hints`, which explains why)."""
    if type(fn) is not types.FunctionType or getattr(fn, "__no_type_check__", None):
        return None
    globalns = fn.__globals__
    local = {} if localns is None else localns  # never the module itself: a ForwardRef would keep its value
    hints = dict(fn.__annotations__)
    try:
        for name, annotation in hints.items():
            if annotation is None:
                hints[name] = type(None)
            elif isinstance(annotation, str):
                hints[name] = _eval_type(_forward_ref(annotation, globalns), globalns, local)
            elif not settled(annotation):
                hints[name] = _eval_type(annotation, globalns, local)
    except Exception:
        return None
    return hints
