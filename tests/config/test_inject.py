"""Inject sources written in config files: `context:`, `header:`, `claim:`, `env:`, constants."""

from __future__ import annotations

import pytest

from toolweave.config.inject import InjectSource, parse_inject


@pytest.mark.parametrize(
    ("written", "parsed"),
    [
        ("context:auth.subject", InjectSource("context", "auth.subject")),
        ("context:state.tenant", InjectSource("context", "state.tenant")),
        ("header:x-tenant", InjectSource("header", "x-tenant")),
        ("claim:sub", InjectSource("claim", "sub")),
        ("env:API_KEY", InjectSource("env", "API_KEY")),
        (" env:API_KEY", InjectSource("env", "API_KEY")),  # (it was the constant " env:API_KEY")
        ("value:a:b", InjectSource("value", "a:b")),
        ("eu-west", InjectSource("value", "eu-west")),
        ("https://example.com/x", InjectSource("value", "https://example.com/x")),
        (42, InjectSource("value", 42)),
        (False, InjectSource("value", False)),
        ({"a": 1}, InjectSource("value", {"a": 1})),
    ],
)
def test_sources_parse(written: object, parsed: InjectSource) -> None:
    assert parse_inject(written) == parsed


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("ctx:auth.subject", "did you mean 'context:'"),
        ("\tctx:auth.subject", "did you mean 'context:'"),
        ("headr:x-tenant", "did you mean 'header:'"),
        ("env:API-KEY", "environment variable name"),
        ("header:x tenant", "HTTP header name"),
        ("claim:", "needs a claim name"),
        ("context:session.user", "starting with one of auth"),
    ],
)
def test_bad_sources_are_refused_with_the_reason(written: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_inject(written)
