"""Properties of config handling: expansion leaves plain text alone, and errors never echo values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolweave import ConfigError
from toolweave.config.envvars import expand
from toolweave.config.loading import validate

NAMES = st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True)
WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="$ "), min_size=6, max_size=20)
SECRETS = st.tuples(WORDS, WORDS).map(lambda words: f"{words[0]} !{words[1]}")
"""Secret-like text that is no valid name, path or pattern (it holds a space), so every template fails."""


@given(st.text().filter(lambda text: "$" not in text))
def test_text_without_a_dollar_is_unchanged(text: str) -> None:
    assert expand({"a": [text]}, environ={}) == {"a": [text]}


@given(NAMES, st.text(max_size=30))
def test_a_reference_expands_to_the_variable(name: str, value: str) -> None:
    assert expand(f"<${{{name}}}>", environ={name: value}) == f"<{value}>"


@given(SECRETS)
@pytest.mark.parametrize(
    "template",
    [
        {"server": {"mask_error_details": "${S}"}},
        {"server": {"on_duplicate": "${S}"}},
        {"mcpServers": {"x": {"command": "c", "timeout": "${S}"}}},
        {"mcpServers": {"x": {"command": "c", "args": "${S}"}}},
        {"middleware": {"timeout": "${S}"}},
        {"python": [{"import": "m:f", "tools": {"f": {"args": {"a": {"hide": "${S}"}}}}}]},
        {"python": ["${S}"]},
        {"python": [{"import": "m:f", "include": ["${S}"]}]},
        {"python": [{"import": "m:f", "prefix": "${S}"}]},
        {"python": [{"import": "m:f", "tools": {"f": {"args": {"a": {"inject": "env:${S}"}}}}}]},
        {"python": [{"import": "m:f", "tools": {"f": {"args": {"a": {"inject": "context:${S}"}}}}}]},
    ],
)
def test_errors_never_echo_an_expanded_secret(template: dict[str, object], secret: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate(template, file="c.yaml", environ={"S": secret})
    assert secret not in str(caught.value)
