"""The directly written input schema is exactly pydantic's, and unknown shapes fall back to pydantic."""

from __future__ import annotations

import enum
import json
import typing
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolweave.core.fast_schema import fast_input_schema
from toolweave.core.reading import Parameter, build_model, model_schema

NAMES = ["q", "limit", "json", "schema", "validate", "model_x", "_private", "class", "page_size", "Title", "a" * 40]
SCALARS: list[Any] = [str, int, float, bool, type(None), Any, list, dict]


def eager(params: list[Parameter]) -> dict[str, Any]:
    """What the input schema was before the fast path: pydantic's model schema."""
    model, _ = build_model("t", params)
    return model_schema("t", model)


def same_order_of_union_members(schema: Any) -> Any:
    """`schema` with each `anyOf` sorted.

    typing and pydantic cache by equality, and `Union[None, str] == Union[str, None]`: after
    one is seen, pydantic may describe the other in the first one's member order. Member
    order is not meaning; every other key order is compared as is.
    """
    if isinstance(schema, dict):
        out = {key: same_order_of_union_members(value) for key, value in schema.items()}
        if "anyOf" in out:
            out["anyOf"] = sorted(out["anyOf"], key=json.dumps)
        return out
    if isinstance(schema, list):
        return [same_order_of_union_members(item) for item in schema]
    return schema


def _literal(values: list[Any]) -> Any:
    return Literal[tuple(values)]  # type: ignore[valid-type]


def _union(members: list[Any]) -> Any:
    return Union[tuple(members)]  # noqa: UP007 - building a union from a list


annotations = st.recursive(
    st.sampled_from(SCALARS)
    | st.lists(st.sampled_from(["asc", "desc", "x", ""]), min_size=1, max_size=3, unique=True).map(_literal)
    | st.lists(st.integers(-3, 3), min_size=1, max_size=3, unique=True).map(_literal),
    lambda inner: (
        inner.map(lambda a: list[a])  # type: ignore[valid-type]
        | inner.map(lambda a: dict[str, a])  # type: ignore[valid-type]
        | inner.map(lambda a: Optional[a])  # noqa: UP045
        | inner.map(lambda a: typing.List[a])  # type: ignore[valid-type]  # noqa: UP006
        | st.lists(inner, min_size=2, max_size=3).map(_union)
    ),
    max_leaves=4,
)
defaults = st.one_of(
    st.just(...),
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
descriptions = st.one_of(st.none(), st.just(""), st.text(max_size=20))


@st.composite
def parameter_lists(draw: st.DrawFn) -> list[Parameter]:
    names = draw(st.lists(st.sampled_from(NAMES), max_size=5, unique=True))
    return [Parameter(name, draw(annotations), draw(defaults), draw(descriptions)) for name in names]


@settings(max_examples=150, deadline=None)
@given(parameter_lists())
def test_the_fast_schema_is_pydantics_schema_key_for_key(params: list[Parameter]) -> None:
    fast = fast_input_schema(params)
    if fast is None:  # a union holding Any, or members described alike: left to pydantic
        assert any(typing.get_origin(param.annotation) is not None for param in params)
        return
    assert json.dumps(same_order_of_union_members(fast)) == json.dumps(same_order_of_union_members(eager(params)))


@pytest.mark.parametrize(
    "annotation",
    [
        str,
        int,
        float,
        bool,
        list[str],
        dict[str, int],
        str | None,
        Optional[list[int]],  # noqa: UP045
        Literal["a", "b"],
        Literal[1],
        int | str | None,
        Any,
        list,
        dict,
        type(None),
    ],
)
def test_common_parameter_types_take_the_fast_path(annotation: Any) -> None:
    params = [Parameter("x", annotation, ..., "the x"), Parameter("y", annotation, None, None)]
    fast = fast_input_schema(params)
    assert fast is not None
    assert fast == eager(params)


class Colour(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int


@pytest.mark.parametrize(
    ("annotation", "default"),
    [
        (Point, ...),
        (Colour, ...),
        (Annotated[int, Field(ge=0)], ...),
        (tuple[int, int], ...),
        (set[str], ...),
        (bytes, ...),
        (dict[int, str], ...),
        (Literal[True], ...),
        (Literal["a", 1], ...),
        (int | Any, ...),
        (int, Field(3, description="d")),
        (float, float("inf")),
        (list[int], [1, 2]),
        (str, Colour.RED),
        (None, None),
    ],
)
def test_other_shapes_are_left_to_pydantic(annotation: Any, default: Any) -> None:
    assert fast_input_schema([Parameter("x", annotation, default, None)]) is None


def test_no_parameters_is_an_empty_object_schema() -> None:
    assert fast_input_schema([]) == eager([]) == {"properties": {}, "type": "object"}
