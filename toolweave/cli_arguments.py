"""What the CLI reads from its command line for a call: `key=value` arguments and `-H` headers.

Example:
    >>> parse_arguments(["n=3", "name=Ada"], None), parse_headers(["X-Tenant: acme"])
    ({'n': 3, 'name': 'Ada'}, {'x-tenant': 'acme'})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolweave.core.schema import json_types


def parse_arguments(
    pairs: Sequence[str], json_args: str | None, schema: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Call arguments from `--json-args` and `key=value` pairs: values are parsed as JSON when
    they parse, except where the tool's input `schema` says the argument is a string, or may be
    one and the parsed value is of a type it may not be.

    Example:
        >>> parse_arguments(["a=1", "name=Ada", 'tags=["x"]'], '{"b": true}')
        {'b': True, 'a': 1, 'name': 'Ada', 'tags': ['x']}
        >>> maybe = {"anyOf": [{"type": "string"}, {"type": "null"}]}
        >>> schema = {"properties": {"text": {"type": "string"}, "maybe": maybe}}
        >>> parse_arguments(["text=42", "maybe=42"], None, schema), parse_arguments(["maybe=null"], None, schema)
        ({'text': '42', 'maybe': '42'}, {'maybe': None})
    """
    properties = (schema or {}).get("properties") or {}
    arguments: dict[str, Any] = {}
    if json_args:
        try:
            loaded = json.loads(json_args)
        except json.JSONDecodeError as error:
            raise ValueError(f"--json-args is not valid JSON: {error.msg} at column {error.colno}") from None
        if not isinstance(loaded, dict):
            raise ValueError("--json-args must be a JSON object")
        arguments.update(loaded)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"argument {pair!r} is not key=value")
        accepted = set(json_types(properties.get(key)))
        if accepted == {"string"}:
            arguments[key] = raw
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        if "string" in accepted and not accepted & _json_types_of(value):
            value = raw  # (`maybe=42` for a `str | None` argument: the string it may be)
        arguments[key] = value
    return arguments


def _json_types_of(value: Any) -> set[str]:
    """The JSON types `value` (parsed JSON) is an instance of."""
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def parse_headers(pairs: Sequence[str]) -> dict[str, str]:
    """`Name: value` (or `name=value`) pairs as lower-case header names."""
    headers: dict[str, str] = {}
    for pair in pairs:
        sep = ":" if ":" in pair else "="
        name, found, value = pair.partition(sep)
        if not found or not name.strip():
            raise ValueError(f"header {pair!r} is not 'Name: value'")
        headers[name.strip().lower()] = value.strip()
    return headers
