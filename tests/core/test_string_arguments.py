"""String arguments (prompt arguments, URI parameters) converted to declared types."""

from __future__ import annotations

from datetime import date

import pytest

from toolweave.core.reading import Parameter, build_model
from toolweave.core.string_arguments import StringArguments
from toolweave.core.validation import ArgumentErrors


def _validator(*params: Parameter) -> StringArguments:
    model, names = build_model("p", params)
    return StringArguments(model, names)


def test_lax_conversion_handles_numbers_booleans_and_dates() -> None:
    v = _validator(Parameter("n", int, ..., None), Parameter("b", bool, ..., None), Parameter("d", date, ..., None))
    assert v.validate({"n": "7", "b": "yes", "d": "2026-01-02"}) == {"n": 7, "b": True, "d": date(2026, 1, 2)}


def test_json_documents_convert_to_lists_and_dicts() -> None:
    v = _validator(Parameter("xs", list[int], ..., None), Parameter("m", dict[str, int], ..., None))
    assert v.validate({"xs": "[1, 2]", "m": '{"a": 1}'}) == {"xs": [1, 2], "m": {"a": 1}}


def test_a_str_parameter_keeps_json_looking_text_as_text() -> None:
    v = _validator(Parameter("s", str, ..., None), Parameter("xs", list[int], ..., None))
    assert v.validate({"s": "123", "xs": "[1]"}) == {"s": "123", "xs": [1]}


def test_a_value_that_does_not_convert_is_reported_by_name() -> None:
    v = _validator(Parameter("n", int, ..., None), Parameter("s", str, ..., None))
    with pytest.raises(ArgumentErrors) as caught:
        v.validate({"n": "many", "s": "fine"})
    assert [(p.path, "integer" in p.message) for p in caught.value.problems] == [("n", True)]


def test_unknown_arguments_are_rejected() -> None:
    with pytest.raises(ArgumentErrors, match="unexpected argument"):
        _validator(Parameter("n", int, ..., None)).validate({"n": "1", "m": "2"})
