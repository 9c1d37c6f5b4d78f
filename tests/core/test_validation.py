"""Validators check names first (unknown, hidden), then values; problems name paths, never values."""

from __future__ import annotations

import pytest

from toolweave.core.validation import ArgumentErrors, SchemaValidator

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
def test_hidden_arguments_are_not_allowed_in_any_case_even_when_extras_are_ignored(spelling: str) -> None:
    validator = SchemaValidator(SCHEMA, forbidden=["user_id"])
    found = problems(validator, {"q": "ok", spelling: "spoof"}, reject_extra=False)
    assert found == {spelling: "argument is not allowed (it is set by the server)"}


def test_value_problems_name_the_path_and_never_echo_the_value() -> None:
    found = problems(SchemaValidator(SCHEMA), {"q": "s3cr3t-x", "n": 99})
    assert found == {"n": "must satisfy maximum 5"}
    found = problems(SchemaValidator(SCHEMA), {"n": "s3cr3t"})
    assert found == {"q": "Field required", "n": "expected integer"}
    assert "s3cr3t" not in str(found)


def test_a_schema_without_properties_accepts_any_names() -> None:
    assert SchemaValidator({"type": "object"}).validate({"anything": 1}) == {"anything": 1}
