"""The CLI's argument and header parsing (the commands themselves: tests/acceptance/test_cli*.py)."""

from __future__ import annotations

import pytest

from toolweave.cli_arguments import parse_arguments, parse_headers


def test_values_are_json_when_they_parse_else_strings() -> None:
    assert parse_arguments(["n=3", "ok=true", "name=Ada Lovelace", "x=null", 'l=[1, "a"]', "v=1.5e3"], None) == {
        "n": 3,
        "ok": True,
        "name": "Ada Lovelace",
        "x": None,
        "l": [1, "a"],
        "v": 1500.0,
    }


def test_key_value_pairs_and_json_args_are_merged() -> None:
    assert parse_arguments(["a=2"], '{"b": 1}') == {"b": 1, "a": 2}


def test_a_value_is_kept_as_typed_where_the_argument_may_be_a_string_but_not_what_it_parses_as() -> None:
    schema = {
        "properties": {
            "text": {"type": "string"},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},  # pydantic's `str | None`
            "either": {"type": ["string", "integer"]},
            "count": {"type": "integer"},
        }
    }
    typed = ["text=42", "maybe=42", "either=42", "count=42"]
    assert parse_arguments(typed, None, schema) == {"text": "42", "maybe": "42", "either": 42, "count": 42}
    assert parse_arguments(["maybe=null", "either=true", "count=x"], None, schema) == {
        "maybe": None,
        "either": "true",
        "count": "x",  # (no string allowed: left for validation to refuse, as typed)
    }


def test_an_enum_of_strings_is_a_string_behind_a_ref_and_without_a_type() -> None:
    """`level=1` for a `str` enum of "1"/"2" (pydantic puts it under `$defs`) was sent as the
    number 1 and refused; so was `color=true` for an enum holding "true"."""
    defs = {"Level": {"enum": ["1", "2"], "type": "string"}, "Color": {"enum": ["red", "true"]}}
    schema = {
        "$defs": defs,
        "properties": {
            "level": {"$ref": "#/$defs/Level"},
            "maybe": {"anyOf": [{"$ref": "#/$defs/Level"}, {"type": "null"}]},  # `Level | None`
            "color": {"$ref": "#/$defs/Color"},
            "mode": {"const": "2"},
            "size": {"enum": [1, 2]},
        },
    }
    typed = ["level=1", "maybe=2", "color=true", "mode=2", "size=2"]
    assert parse_arguments(typed, None, schema) == {"level": "1", "maybe": "2", "color": "true", "mode": "2", "size": 2}
    assert parse_arguments(["maybe=null"], None, schema) == {"maybe": None}


def test_an_equals_sign_in_the_value_is_kept() -> None:
    assert parse_arguments(["query=a=b"], None) == {"query": "a=b"}


@pytest.mark.parametrize(
    ("pairs", "json_args", "problem"),
    [
        (["novalue"], None, "is not key=value"),
        (["=x"], None, "is not key=value"),
        ([], "{bad", "not valid JSON"),
        ([], "[1, 2]", "must be a JSON object"),
        (["a=1", "b=2", "a=3"], None, r"^argument 'a' is given twice: 'a=1' and 'a=3'$"),
        (["a=2"], '{"a": 1, "b": 2}', r"^argument 'a' is given both as 'a=2' and in --json-args$"),
        ([], '{"a": ' + "[" * 3000 + "]" * 3000 + "}", r"^--json-args is nested too deeply to read$"),
    ],
)
def test_bad_arguments_are_refused(pairs: list[str], json_args: str | None, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_arguments(pairs, json_args)


def test_a_value_nested_too_deeply_for_json_is_taken_as_written() -> None:
    """(It was a RecursionError traceback.)"""
    deep = "[" * 3000 + "]" * 3000
    assert parse_arguments([f"a={deep}"], None) == {"a": deep}


def test_headers_are_lower_cased() -> None:
    assert parse_headers(["Authorization: Bearer t", "X-Tenant=acme"]) == {
        "authorization": "Bearer t",
        "x-tenant": "acme",
    }


def test_a_header_without_a_separator_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^-H takes 'Name: value'"):
        parse_headers(["Authorization"])
