"""Validate arguments that arrive as strings (prompt arguments, URI template parameters).

MCP sends prompt arguments as `{name: string}` and a URI template yields strings too, but the
function declares real types (`int`, `bool`, `list[str]`, a model...). `StringArguments`
validates the strings with the function's pydantic model in lax mode (so `"3"` → `3`,
`"true"` → `True`, `"2026-01-02"` → a date); a value that still fails and is a JSON document
(`"[1, 2]"`, `'{"a": 1}'`) is decoded and validated once more. Only the arguments that failed
are decoded, so a `str` parameter given `"123"` stays the string `"123"`.

Example:
    >>> from toolweave.core.reading import Parameter, build_model
    >>> params = [Parameter("n", int, ..., None), Parameter("tags", list[str], (), None)]
    >>> model, names = build_model("p", params)
    >>> StringArguments(model, names).validate({"n": "3", "tags": '["a", "b"]'})
    {'n': 3, 'tags': ['a', 'b']}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from toolweave.core.validation import ArgumentErrors, ModelValidator


def _decoded(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


class StringArguments:
    """A validator for string-valued arguments, converting them to the declared types."""

    __slots__ = ("_inner", "allowed")

    def __init__(self, model: type[BaseModel], names: Mapping[str, str] | None = None) -> None:
        self._inner = ModelValidator(model, names=names)
        self.allowed = self._inner.allowed

    def validate(self, arguments: Mapping[str, Any], *, reject_extra: bool = True) -> dict[str, Any]:
        """The converted arguments, or `ArgumentErrors` naming each argument that does not convert."""
        try:
            return self._inner.validate(arguments, reject_extra=reject_extra)
        except ArgumentErrors as first:
            failed = {problem.path.split(".", 1)[0] for problem in first.problems}
            retry = {key: _decoded(value) if key in failed else value for key, value in arguments.items()}
            if all(retry[key] is arguments[key] for key in arguments):
                raise
            return self._inner.validate(retry, reject_extra=reject_extra)
