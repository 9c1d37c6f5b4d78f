"""Building a `Resource` from a function: URIs, templates, parameter checks, return values."""

from __future__ import annotations

import base64

import anyio
import pytest

from toolweave.core.content import BlobResourceContents, TextResourceContents
from toolweave.core.context import Context
from toolweave.core.resource import Resource, ResourceResult, to_resource_result


def test_a_static_resource_takes_its_name_and_description_from_the_function() -> None:
    def cities() -> list[str]:
        """All the cities."""
        return []

    resource = Resource.from_function(cities, "resource://cities", mime_type="application/json", tags={"geo"})
    assert (resource.name, resource.description, resource.is_template) == ("cities", "All the cities.", False)
    assert resource.mime_type == "application/json" and resource.tags == frozenset({"geo"})


def test_a_template_has_the_uri_parameters() -> None:
    def readme(owner: str, repo: str) -> str:
        return ""

    resource = Resource.from_function(readme, "repo://{owner}/{repo}/readme")
    assert resource.is_template and resource.parameters == ("owner", "repo")


def test_uri_parameters_must_equal_the_function_parameters() -> None:
    def weather(town: str) -> str:
        return ""

    with pytest.raises(TypeError, match=r"has parameters \['city'\] but the function takes \['town'\]"):
        Resource.from_function(weather, "resource://{city}/weather")


def test_a_function_parameter_missing_from_the_uri_is_rejected() -> None:
    def weather(city: str, units: str = "metric") -> str:
        return ""

    with pytest.raises(TypeError, match=r"takes \['city', 'units'\]"):
        Resource.from_function(weather, "resource://{city}/weather")


def test_a_static_uri_with_a_parameterised_function_is_rejected() -> None:
    def weather(city: str) -> str:
        return ""

    with pytest.raises(TypeError, match=r"has parameters \[\] but the function takes \['city'\]"):
        Resource.from_function(weather, "resource://weather")


def test_a_context_parameter_does_not_count() -> None:
    def weather(city: str, ctx: Context) -> str:
        return city

    assert Resource.from_function(weather, "resource://{city}/weather").parameters == ("city",)


def test_a_uri_without_a_scheme_is_rejected() -> None:
    with pytest.raises(ValueError, match="must start with a scheme"):
        Resource.from_function(lambda: "x", "cities", name="cities")


def test_template_parameters_convert_to_declared_types() -> None:
    def invoice(number: int) -> str:
        return ""

    resource = Resource.from_function(invoice, "bill://{number}")
    assert resource.validator is not None and resource.validator.validate({"number": "42"}) == {"number": 42}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", TextResourceContents("r://x", "plain", "text/plain")),
        (
            b"\x00\x01",
            BlobResourceContents("r://x", base64.b64encode(b"\x00\x01").decode(), "application/octet-stream"),
        ),
        ({"a": [1]}, TextResourceContents("r://x", '{"a": [1]}', "application/json")),
        ([1, 2], TextResourceContents("r://x", "[1, 2]", "application/json")),
    ],
)
def test_return_values_become_contents(value: object, expected: object) -> None:
    assert to_resource_result(value, "r://x").contents == [expected]


def test_the_declared_mime_type_wins() -> None:
    assert to_resource_result("# hi", "r://x", "text/markdown").contents[0].mime_type == "text/markdown"


def test_contents_and_results_pass_through() -> None:
    contents = TextResourceContents("r://other", "x")
    result = ResourceResult([contents])
    assert to_resource_result(result, "r://x") is result
    assert to_resource_result([contents], "r://x").contents == [contents]


def test_a_sync_function_runs_when_read() -> None:
    calls: list[str] = []

    def now() -> str:
        calls.append("read")
        return str(len(calls))

    resource = Resource.from_function(now, "clock://now")
    first = anyio.run(resource.run, "clock://now", {}, Context())
    second = anyio.run(resource.run, "clock://now", {}, Context())
    assert (first.text, second.text) == ("1", "2")
