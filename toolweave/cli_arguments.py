"""What the CLI reads from its command line for a call: `key=value` arguments and `-H` headers.

Example:
    >>> parse_arguments(["n=3", "name=Ada"], None), parse_headers(["X-Tenant: acme"])
    ({'n': 3, 'name': 'Ada'}, {'x-tenant': 'acme'})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolweave.config.unique_keys import KeysTwice, load_json
from toolweave.core.schema import json_types


def parse_arguments(
    pairs: Sequence[str], json_args: str | None, schema: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Call arguments from `--json-args` and `key=value` pairs: values are parsed as JSON when
    they parse, except where the tool's input `schema` says the argument is a string, or may be
    one and the parsed value is of a type it may not be. An argument given twice is refused
    (neither one wins).

    Example:
        >>> parse_arguments(["a=1", "name=Ada", 'tags=["x"]'], '{"b": true}')
        {'b': True, 'a': 1, 'name': 'Ada', 'tags': ['x']}
        >>> parse_arguments(["a=1"], '{"a": 5}')
        Traceback (most recent call last):
        ValueError: argument 'a' is given both as 'a=1' and in --json-args
        >>> maybe = {"anyOf": [{"type": "string"}, {"type": "null"}]}
        >>> schema = {"properties": {"text": {"type": "string"}, "maybe": maybe}}
        >>> parse_arguments(["text=42", "maybe=42"], None, schema), parse_arguments(["maybe=null"], None, schema)
        ({'text': '42', 'maybe': '42'}, {'maybe': None})
    """
    properties = (schema or {}).get("properties") or {}
    defs = (schema or {}).get("$defs") or {}
    arguments = _json_arguments(json_args)
    given: dict[str, str] = {}  # each key=value argument's pair, to name both of a repeated one
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"argument {pair!r} is not key=value")
        if key in given:
            raise ValueError(f"argument {key!r} is given twice: {given[key]!r} and {pair!r}")
        if key in arguments:
            raise ValueError(f"argument {key!r} is given both as {pair!r} and in --json-args")
        given[key] = pair
        arguments[key] = _value(raw, accepted=_accepted(properties.get(key), defs))
    return arguments


_MOST_REFS = 16
"""How deep `_accepted` follows references and branches (a schema may refer to itself)."""


def _accepted(prop: Any, defs: Mapping[str, Any], depth: int = 0) -> set[str]:
    """The JSON types an argument's schema accepts (none: any): its `type`, else those of its
    `enum`/`const` values, and those of its `anyOf`/`oneOf` branches, each `#/$defs/` reference
    followed (pydantic puts an enum there).

    Example:
        >>> sorted(_accepted({"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}]}, {"L": {"enum": ["1", "2"]}}))
        ['null', 'string']
    """
    if not isinstance(prop, Mapping) or depth > _MOST_REFS:
        return set()
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _accepted(defs.get(ref.removeprefix("#/$defs/")), defs, depth + 1)
    found = set(json_types({"type": prop.get("type")}))
    if not found:
        values = [*(prop.get("enum") or ()), *([prop["const"]] if "const" in prop else [])]
        found = set().union(*map(_json_types_of, values))
    for branch in (*(prop.get("anyOf") or ()), *(prop.get("oneOf") or ())):
        found |= _accepted(branch, defs, depth + 1)
    return found


def _value(raw: str, accepted: set[str]) -> Any:
    """The value of a `key=value` argument whose schema `accepted` these JSON types (none: any)."""
    if accepted == {"string"}:
        return raw
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):  # (nested past what json reads: text, as any non-JSON)
        return raw
    if "string" in accepted and not accepted & _json_types_of(value):
        return raw  # (`maybe=42` for a `str | None` argument: the string it may be)
    return value


def _json_arguments(json_args: str | None) -> dict[str, Any]:
    """The arguments of `--json-args` (a JSON object), none without it; a key given twice in one
    object is refused, as an argument given twice is (the last would silently win)."""
    if not json_args:
        return {}
    try:
        loaded = load_json(json_args)
    except KeysTwice as error:
        raise ValueError(f"--json-args: {error}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"--json-args is not valid JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise ValueError("--json-args is nested too deeply to read") from None
    if not isinstance(loaded, dict):
        raise ValueError("--json-args must be a JSON object")
    return loaded


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
    """`Name: value` (or `name=value`) pairs as lower-case header names. A header given twice is
    refused, naming it (never its values: a header may carry a token), as the HTTP edge refuses
    an `Authorization` header sent twice; a pair that is no header is not quoted either.

    Example:
        >>> parse_headers(["Authorization: Bearer a", "authorization: Bearer b"])
        Traceback (most recent call last):
        ValueError: header 'authorization' is given twice (-H takes each header once)
    """
    headers: dict[str, str] = {}
    for pair in pairs:
        sep = ":" if ":" in pair else "="
        name, found, value = pair.partition(sep)
        if not found or not name.strip():
            raise ValueError("-H takes 'Name: value' (one has no ':' or '=', or no name)")  # (not quoted: a token?)
        key = name.strip().lower()
        if key in headers:
            raise ValueError(f"header {key!r} is given twice (-H takes each header once)")
        headers[key] = value.strip()
    return headers
