"""URI templates: parsing, matching one and two parameters, and malformed templates."""

from __future__ import annotations

import pytest

from toolweave.core.uri_template import TemplateSet, UriTemplate, check_uri, is_template


def test_one_parameter_matches_one_segment() -> None:
    template = UriTemplate.parse("resource://{city}/weather")
    assert template.parameters == ("city",)
    assert template.match("resource://Paris/weather") == {"city": "Paris"}
    assert template.match("resource://Paris/France/weather") is None


def test_two_parameters_match_in_order() -> None:
    template = UriTemplate.parse("repo://{owner}/{name}/readme")
    assert template.parameters == ("owner", "name")
    assert template.match("repo://acme/site/readme") == {"owner": "acme", "name": "site"}


def test_values_are_percent_decoded() -> None:
    assert UriTemplate.parse("city://{name}").match("city://New%20York") == {"name": "New York"}


def test_literal_characters_are_not_patterns() -> None:
    template = UriTemplate.parse("data://v1.0/{id}")
    assert template.match("data://v1x0/3") is None and template.match("data://v1.0/3") == {"id": "3"}


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("no-scheme/{id}", "must start with a scheme"),
        ("res://{id", "unbalanced brace"),
        ("res://{+path}", "not supported"),
        ("res://{a}/{a}", "twice"),
    ],
)
def test_malformed_templates_are_rejected(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        UriTemplate.parse(template)


def test_check_uri_and_is_template() -> None:
    assert check_uri("file:///tmp/x") == "file:///tmp/x"
    assert is_template("res://{x}") and not is_template("res://x")


def _set(*templates: str) -> TemplateSet[str]:
    return TemplateSet([(UriTemplate.parse(t), t) for t in templates])


def test_a_template_set_finds_the_matching_template() -> None:
    templates = _set("a://{x}", "b://{y}/z", "b://items/{id}")
    assert templates.match("b://items/7") == ("b://items/{id}", {"id": "7"})
    assert templates.match("b://q/z") == ("b://{y}/z", {"y": "q"})
    assert templates.match("c://x") is None


def test_in_a_template_set_the_first_registered_wins() -> None:
    assert _set("r://{any}", "r://{name}").match("r://x") == ("r://{any}", {"any": "x"})
    assert _set("r://items/{id}", "r://{kind}/{id}").match("r://items/1") == ("r://items/{id}", {"id": "1"})
    assert _set("r://{kind}/{id}", "r://items/{id}").match("r://items/1") == (
        "r://{kind}/{id}",
        {"kind": "items", "id": "1"},
    )
