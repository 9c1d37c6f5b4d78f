"""Property tests: the generated schema accepts every value the function accepts, and values round-trip."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from typing import Annotated, Any, Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field, TypeAdapter
from typing_extensions import TypedDict

from toolweave import Tool


class Mood(enum.Enum):
    HAPPY = "happy"
    GRUMPY = "grumpy"


class Address(BaseModel):
    street: str
    number: Annotated[int, Field(ge=1)]


class Tags(TypedDict):
    name: str
    weight: float


def everything(
    count: Annotated[int, Field(ge=0, le=1000)],
    label: Annotated[str, Field(min_length=1, max_length=20)],
    ratio: float,
    flag: bool,
    numbers: list[int],
    scores: dict[str, float],
    mode: Literal["fast", "slow"],
    mood: Mood,
    when: dt.datetime,
    ident: uuid.UUID,
    maybe: int | None,
    either: int | str,
    pair: tuple[int, str],
    address: Address,
    tags: Tags,
    json: str = "kept",
) -> None:
    """A function with one parameter of each kind."""


TOOL = Tool.from_function(everything)
SCHEMA_VALIDATOR = Draft202012Validator(dict(TOOL.input_schema))
finite = st.floats(allow_nan=False, allow_infinity=False)
ARGUMENTS = st.fixed_dictionaries(
    {
        "count": st.integers(0, 1000),
        "label": st.text(min_size=1, max_size=20),
        "ratio": finite,
        "flag": st.booleans(),
        "numbers": st.lists(st.integers()),
        "scores": st.dictionaries(st.text(), finite),
        "mode": st.sampled_from(["fast", "slow"]),
        "mood": st.sampled_from(Mood),
        "when": st.datetimes(),
        "ident": st.uuids(),
        "maybe": st.none() | st.integers(),
        "either": st.integers() | st.text(),
        "pair": st.tuples(st.integers(), st.text()),
        "address": st.builds(Address, street=st.text(), number=st.integers(min_value=1)),
        "tags": st.fixed_dictionaries({"name": st.text(), "weight": finite}),
        "json": st.text(),
    }
)
TO_JSON = TypeAdapter(dict[str, Any])


def as_json(arguments: dict[str, Any]) -> dict[str, Any]:
    dumped: dict[str, Any] = TO_JSON.dump_python(arguments, mode="json")
    return dumped


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(ARGUMENTS)
def test_the_schema_accepts_every_value_the_function_accepts(arguments: dict[str, Any]) -> None:
    wire = as_json(arguments)
    errors = [error.message for error in SCHEMA_VALIDATOR.iter_errors(wire)]
    assert errors == []
    validated = TOOL.validator.validate(wire)
    for name, value in arguments.items():
        if name == "either" and isinstance(value, str) and value.lstrip("+-").isdigit():
            continue  # "12" is a valid str; lax int-first union coercion may read it as 12
        assert validated[name] == value, name


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(TOOL.input_schema["properties"])), st.integers() | st.text()))
def test_the_validator_never_accepts_what_the_schema_rejects_for_required_fields(arguments: dict[str, Any]) -> None:
    missing = set(TOOL.input_schema["required"]) - set(arguments)
    if missing:
        try:
            TOOL.validator.validate(arguments)
        except Exception as error:
            assert all(name in str(error) for name in missing)
        else:
            raise AssertionError("missing required arguments were accepted")
