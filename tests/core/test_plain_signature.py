"""Reading a plain function's parameters from its code object agrees with `inspect.signature`."""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Any

import pytest

from toolweave.core.context import Context
from toolweave.core.plain_signature import plain_parameters, plain_type_hints


def by_inspect(fn: Any) -> list[tuple[str, Any]]:
    return [
        (p.name, ... if p.default is inspect.Parameter.empty else p.default)
        for p in inspect.signature(fn).parameters.values()
    ]


SOURCES = [
    "def f(): pass",
    "def f(a): pass",
    "def f(a, b=2, c=None): pass",
    "def f(a, *, b, c=3): pass",
    "def f(*, b=1, c): pass",
    "def f(a=1, *, b=2): x = 1; y = 2",
    "async def f(a: int, b: str = 'x') -> str: return b",
]


@pytest.mark.parametrize("source", SOURCES)
def test_plain_functions_read_like_inspect_signature(source: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    assert plain_parameters(namespace["f"]) == by_inspect(namespace["f"])


@pytest.mark.parametrize("source", ["def f(*args): pass", "def f(**kw): pass", "def f(a, /, b): pass"])
def test_unsupported_kinds_are_left_to_inspect(source: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    assert plain_parameters(namespace["f"]) is None


def test_wrappers_partials_methods_and_builtins_are_left_to_inspect() -> None:
    def inner(a: int, b: int) -> int:
        return a + b

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> int:
        return inner(*args, **kwargs)

    def signed(a: int) -> int:
        return a

    signed.__signature__ = inspect.Signature()  # type: ignore[attr-defined]

    class Thing:
        def method(self, a: int) -> int:
            return a

    for fn in (wrapper, signed, functools.partial(inner, 1), Thing().method, len):
        assert plain_parameters(fn) is None


HINTED = [
    "def f(a: int, b: str = 'x') -> str: pass",
    "def f(a: list[str], b: dict[str, int] | None = None) -> None: pass",
    "def f(a: Literal['x', 'y'], b: Optional[List[int]], c: Annotated[int, 'doc']): pass",
    "def f(a: None, b: Any, c: Union[int, str]): pass",
    "def f(a, b=1): pass",
]


@pytest.mark.parametrize("source", HINTED)
def test_settled_annotations_read_like_get_type_hints(source: str) -> None:
    namespace: dict[str, Any] = {}
    exec(compile("from typing import *\n" + source, "<test>", "exec", dont_inherit=True), namespace)
    fn = namespace["f"]
    assert plain_type_hints(fn) == typing.get_type_hints(fn, include_extras=True)


STRING_HINTED = [
    "def f(a: 'int', b: 'list[str]' = None) -> 'dict[str, int]': pass",
    "def f(a: list['int'], b: 'Optional[Literal[\"x\"]]'): pass",
    "def f(a: 'Annotated[int, \"doc\"]', ctx: 'Context'): pass",
]


@pytest.mark.parametrize("source", STRING_HINTED)
def test_string_annotations_resolve_like_get_type_hints(source: str) -> None:
    namespace: dict[str, Any] = {}
    exec(compile("from typing import *\n" + source, "<test>", "exec", dont_inherit=True), namespace)
    fn, local = namespace["f"], {"Context": Context}
    assert plain_type_hints(fn, local) == typing.get_type_hints(fn, localns=local, include_extras=True)
    assert plain_type_hints(fn, local) == plain_type_hints(fn, local)  # the shared ForwardRefs


def test_a_string_annotation_resolves_against_the_module_as_it_is_now() -> None:
    namespace: dict[str, Any] = {"Thing": int}
    exec(compile("def f(a: 'Thing'): pass", "<test>", "exec", dont_inherit=True), namespace)
    assert plain_type_hints(namespace["f"]) == {"a": int}
    namespace["Thing"] = str
    assert plain_type_hints(namespace["f"]) == {"a": str}


@pytest.mark.parametrize(
    "source", ["def f(a: 'Missing'): pass", "def f(a: list['Missing']): pass", "def f(a: '1 +'): pass"]
)
def test_unresolvable_annotations_are_left_to_get_type_hints(source: str) -> None:
    namespace: dict[str, Any] = {}
    exec(compile("from typing import *\n" + source, "<test>", "exec", dont_inherit=True), namespace)
    assert plain_type_hints(namespace["f"]) is None


def test_no_type_check_functions_are_left_to_get_type_hints() -> None:
    @typing.no_type_check
    def f(a: int) -> int:
        return a

    assert plain_type_hints(f) is None
