"""Where an injected argument's value comes from, as written in a config file.

| written                  | value at call time                                  |
|--------------------------|-----------------------------------------------------|
| `"context:auth.subject"` | an attribute path on the request `Context`          |
| `"header:x-tenant"`      | an HTTP request header (HTTP transport only)        |
| `"claim:sub"`            | a claim of the authenticated caller's token         |
| `"env:API_KEY"`          | an environment variable, read at call time          |
| `"value:text:with:colons"` | the literal text after `value:`                   |
| anything else            | a constant (`42`, `"eu"`, `true`, `{"a": 1}`)        |

A string that looks like `word:rest` with an unknown `word` is an error (it is almost always a
misspelt source), unless it is a URL-like constant written as `value:...`.

Example:
    >>> parse_inject("claim:sub")
    InjectSource(kind='claim', argument='sub')
    >>> parse_inject(42)
    InjectSource(kind='value', argument=42)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from toolweave.core.names import suggest

KINDS = ("context", "header", "claim", "env", "value")
CONTEXT_ROOTS = ("auth", "client", "headers", "meta", "request_id", "state")
_PREFIX = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*):(.*)$", re.DOTALL)  # (a space before the source is no constant)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
_CONTEXT_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$")


@dataclass(frozen=True, slots=True)
class InjectSource:
    """A parsed inject source: its kind and its argument (a name, a path, or the constant)."""

    kind: str
    argument: Any


def _check(kind: str, argument: str) -> None:
    if kind == "env" and not _ENV_NAME.match(argument):
        raise ValueError("'env:' needs an environment variable name like API_KEY")
    if kind == "header" and not _HEADER_NAME.match(argument):
        raise ValueError("'header:' needs an HTTP header name like x-tenant")
    if kind == "claim" and not argument:
        raise ValueError("'claim:' needs a claim name, e.g. 'claim:sub'")
    if kind == "context":
        root = argument.split(".", 1)[0]
        if not _CONTEXT_PATH.match(argument) or root not in CONTEXT_ROOTS:
            roots = ", ".join(CONTEXT_ROOTS)
            raise ValueError(
                f"'context:' needs a path into the request context starting with one of {roots} "
                "(e.g. 'context:auth.subject')"
            )


def parse_inject(value: Any) -> InjectSource:
    """Parse an `inject` value; `ValueError` with a suggestion when the source is unknown."""
    if not isinstance(value, str):
        return InjectSource("value", value)
    match = _PREFIX.match(value)
    if match is None or "//" in value.split(":", 1)[1][:2]:
        return InjectSource("value", value)
    kind, argument = match.group(1), match.group(2)
    if kind not in KINDS:
        hint = suggest(kind, list(KINDS))
        advice = f"did you mean '{hint}:'?" if hint else "use 'value:...' for a constant that contains ':'"
        raise ValueError(
            f"unknown inject source '{kind}:' ({advice}); sources are "
            "'context:<path>', 'header:<name>', 'claim:<name>', 'env:<VAR>' or a constant"
        )
    if kind == "value":
        return InjectSource("value", argument)
    _check(kind, argument)
    return InjectSource(kind, argument)
