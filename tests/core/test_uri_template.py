"""URI templates: parsing, matching `{name}`, `{+name}` and query parameters, malformed templates."""

from __future__ import annotations

import time

import pytest

from toolweave.core.resource import Resource
from toolweave.core.uri_template import MAX_URI_LENGTH, TemplateSet, UriTemplate, check_uri, is_template


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
        ("res://{#part}", r"'res://{#part}': \{#part\} is not supported"),
        ("res://x{/seg}", "not supported"),
        ("res://x{.ext}", "not supported"),
        ("res://x{;p}", "not supported"),
        ("res://{path*}", "not supported"),
        ("res://{name:3}", "not supported"),
        ("res://{a,b}", "not supported"),
        ("res://{+a,b}", "not supported"),
        ("res://{a}/{a}", "twice"),
        ("res://{a}{?a}", "twice"),
        ("res://{+a}/x/{+b}", "more than one"),
        ("res://{+a}{b}/z", "literal text between"),
        ("res://{a}{+b}/z", "literal text between"),
        ("res://x{?q}/y", "must end it"),
        ("res://x{?q}{?r}", "only"),
        ("res://x{?q}{name}", "only"),
        ("res://x?v=1{?q}", "after a '?'"),
        ("res://x{&q}", "without a '?'"),
    ],
)
def test_malformed_templates_are_rejected(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        UriTemplate.parse(template)


def test_check_uri_and_is_template() -> None:
    assert check_uri("file:///tmp/x") == "file:///tmp/x"
    assert is_template("res://{x}") and not is_template("res://x")


def test_a_uri_no_client_could_read_is_refused_where_it_is_made() -> None:
    """A resource past `MAX_URI_LENGTH` was registered (or listed by an upstream) and never readable."""
    assert check_uri("r://" + "a" * (MAX_URI_LENGTH - 4))
    with pytest.raises(ValueError, match=r"is 65537 characters long: no client could read it \(at most 65536"):
        check_uri("r://" + "a" * (MAX_URI_LENGTH - 3))
    with pytest.raises(ValueError, match="MAX_URI_LENGTH"):
        Resource.from_function(lambda: "x", "r://" + "a" * MAX_URI_LENGTH)


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


def test_a_reserved_parameter_takes_slashes_and_leaves_the_rest_of_the_template_to_match() -> None:
    template = UriTemplate.parse("repo://{owner}/{+path}/raw")
    assert template.match("repo://acme/src/app/main.py/raw") == {"owner": "acme", "path": "src/app/main.py"}
    assert template.match("repo://acme/a%20b/raw") == {"owner": "acme", "path": "a b"}
    assert template.match("repo://acme/src/main.py") is None


def test_a_reserved_parameter_may_sit_beside_a_query_and_after_literal_text() -> None:
    assert UriTemplate.parse("r://{a}-{+b}{?c}").match("r://x-y/z?c=1") == {"a": "x", "b": "y/z", "c": "1"}


def test_a_reserved_parameter_stops_at_the_query() -> None:
    template = UriTemplate.parse("file:///{+path}{?rev}")
    assert template.match("file:///docs/a.md?rev=3") == {"path": "docs/a.md", "rev": "3"}
    assert UriTemplate.parse("file:///{+path}").match("file:///docs/a.md?rev=3") is None


def test_query_parameters_come_in_any_order_each_optional_and_percent_decoded() -> None:
    template = UriTemplate.parse("search://items{?q,limit}")
    assert template.parameters == ("q", "limit") and template.query == {"q", "limit"}
    assert template.match("search://items?limit=5&q=red%20car") == {"q": "red car", "limit": "5"}
    assert template.match("search://items?q=a+b&utm=x&q=second") == {"q": "a+b"}
    assert template.match("search://items") == {}
    assert template.match("search://items?") == {}
    assert template.match("search://things?q=1") is None


def test_continued_query_parameters_join_the_query() -> None:
    assert UriTemplate.parse("logs://{service}{?level}{&since}").match("logs://api?since=5m&level=error") == {
        "service": "api",
        "level": "error",
        "since": "5m",
    }
    after_literal = UriTemplate.parse("api://list?v=1{&page}")
    assert after_literal.match("api://list?v=1&page=2") == {"page": "2"}
    assert after_literal.match("api://list?v=1") == {}
    assert after_literal.match("api://list?v=2&page=2") is None


def test_a_template_set_indexes_operator_templates_by_their_literal_start() -> None:
    templates = _set("search://items{?q}", "file:///{+path}", "file:///{name}")
    assert templates.match("search://items?q=x") == ("search://items{?q}", {"q": "x"})
    assert templates.match("file:///a/b") == ("file:///{+path}", {"path": "a/b"})
    assert _set("file:///{name}", "file:///{+path}").match("file:///a") == ("file:///{name}", {"name": "a"})


@pytest.mark.parametrize(
    ("template", "uri"),
    [
        ("res://{a}-{b}-{c}", "res://" + "-" * 3_000 + "/"),
        ("res://{+a}-{b}", "res://" + "-" * 100_000 + "#"),
        ("res://{a}{b}", "res://" + "a" * 100_000 + "/"),
        ("res://x?{a}{&p}", "res://x?" + "&" * 100_000 + "#"),
    ],
)
def test_a_long_uri_is_refused_in_linear_time(template: str, uri: str) -> None:
    """Where a parameter may hold the text after it, a URI that fits no split is not tried
    split by split (a regex's backtracking took 11 s for 2 KB against `{a}-{b}-{c}`)."""
    started = time.perf_counter()
    assert UriTemplate.parse(template).match(uri) is None
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("template", "uri", "values"),
    [
        ("res://{a}-{b}", "res://x-y-z", {"a": "x-y", "b": "z"}),
        ("res://{+a}-{b}{?q}", "res://d/e-f-g?q=1", {"a": "d/e-f", "b": "g", "q": "1"}),
        ("res://{a}{b}", "res://xyz", {"a": "xy", "b": "z"}),
        ("res://x?{a}{&p}", "res://x?v&p=2", {"a": "v&p=2"}),
        ("res://{+a}/m/{b}.{c}", "res://1/m/2/m/3.4.5", {"a": "1/m/2", "b": "3.4", "c": "5"}),
    ],
)
def test_each_parameter_takes_as_much_as_the_rest_leaves(template: str, uri: str, values: dict[str, str]) -> None:
    assert UriTemplate.parse(template).match(uri) == values
