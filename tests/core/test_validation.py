"""Validators check names first (unknown, hidden), then values; problems name paths, never values."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import create_model

from toolweave.core.validation import ArgumentErrors, LazyModelValidator, ModelValidator, SchemaValidator

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string", "minLength": 2}, "n": {"type": "integer", "maximum": 5}},
    "required": ["q"],
}


def problems(validator: SchemaValidator, arguments: dict[str, object], **kw: bool) -> dict[str, str]:
    with pytest.raises(ArgumentErrors) as raised:
        validator.validate(arguments, **kw)
    return {p.path: p.message for p in raised.value.problems}


def test_unknown_arguments_are_refused_by_name() -> None:
    assert problems(SchemaValidator(SCHEMA), {"q": "ok", "zz": 1}) == {"zz": "unexpected argument"}


def test_unknown_arguments_can_be_ignored() -> None:
    assert SchemaValidator(SCHEMA).validate({"q": "ok", "zz": 1}, reject_extra=False) == {"q": "ok"}


@pytest.mark.parametrize("spelling", ["user_id", "USER_ID", "User_Id"])
def test_hidden_arguments_are_dropped_like_unknown_ones_in_any_case_when_extras_are_ignored(spelling: str) -> None:
    validator = SchemaValidator(SCHEMA, forbidden=["user_id"])
    assert validator.validate({"q": "ok", spelling: "spoof"}, reject_extra=False) == {"q": "ok"}  # no oracle


def test_value_problems_name_the_path_and_never_echo_the_value() -> None:
    found = problems(SchemaValidator(SCHEMA), {"q": "s3cr3t-x", "n": 99})
    assert found == {"n": "must satisfy maximum 5"}
    found = problems(SchemaValidator(SCHEMA), {"n": "s3cr3t"})
    assert found == {"q": "Field required", "n": "expected integer"}
    assert "s3cr3t" not in str(found)


def test_a_schema_without_properties_accepts_any_names() -> None:
    assert SchemaValidator({"type": "object"}).validate({"anything": 1}) == {"anything": 1}


def test_a_lazy_model_validator_builds_its_model_at_the_first_validation() -> None:
    builds: list[int] = []

    def build() -> Any:
        builds.append(1)
        return create_model("m", n=(int, ...)), None

    validator = LazyModelValidator(build, forbidden=["user"])
    assert not validator.built and not hasattr(validator, "inner") and builds == []
    assert validator.validate({"n": "3"}) == {"n": 3}
    assert validator.built and builds == [1]
    with pytest.raises(ArgumentErrors, match="user: unexpected argument"):
        validator.validate({"n": 1, "user": "x"})
    assert builds == [1]


def test_a_lazy_model_validator_builds_when_a_transform_reads_its_model() -> None:
    model = create_model("m", n=(int, ...))
    validator = LazyModelValidator(lambda: (model, None))
    assert isinstance(validator, ModelValidator)
    assert validator.model is model and validator.allowed == frozenset({"n"}) and validator.built
