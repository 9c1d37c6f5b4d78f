"""Pydantic validation errors, rewritten as config problems: key path + what is wrong.

Messages never echo a value from the file (it may hold a secret expanded from the
environment); they say what was expected and what kind of value was found.

Example:
    >>> from toolweave.config.models import Config
    >>> try:
    ...     Config.model_validate({"server": {"mask_error_details": "no"}})
    ... except Exception as error:
    ...     print(describe(error)[0])
    server.mask_error_details: expected true or false, got a string
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from toolweave.config.base import json_kind
from toolweave.config.paths import key_path
from toolweave.core.names import suggest

_EXPECTED = {
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "dict_type": "a mapping (an object / table)",
    "model_type": "a mapping (an object / table)",
    "model_attributes_type": "a mapping (an object / table)",
    "list_type": "a list",
}
_KIND_WORDS = {
    "object": "a mapping",
    "list": "a list",
    "string": "a string",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _got(value: Any) -> str:
    kind = json_kind(value)
    return _KIND_WORDS.get(kind, kind)


def _is_tag(part: str) -> bool:
    return part.startswith("<") and part.endswith(">")


def _location(error: Any) -> tuple[Any, ...]:
    """The loc without pydantic's internal parts (union tags, `[key]` markers)."""
    loc: list[Any] = []
    for part in error["loc"]:
        if isinstance(part, str) and (_is_tag(part) or part == "[key]" or part.startswith("function-")):
            continue
        loc.append(part)
    return tuple(loc)


def _did_you_mean(given: Any, expected: str) -> str:
    if not isinstance(given, str):
        return ""
    hint = suggest(given, re.findall(r"'([^']*)'", expected))
    return f" (did you mean {hint!r}?)" if hint else ""


def _message(error: Any) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "unknown_key":
        return f"unknown key ({ctx['advice']})"
    if kind == "missing":
        return "required key is missing"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_got(error['input'])}"
    if kind == "union_tag_invalid":
        expected = " or ".join(_KIND_WORDS.get(tag.strip("'<>"), tag) for tag in str(ctx["expected_tags"]).split(", "))
        return f"expected {expected}, got {_got(error['input'])}"
    if kind == "literal_error":
        return f"expected {ctx['expected']}{_did_you_mean(error['input'], str(ctx['expected']))}"
    if kind in ("greater_than", "greater_than_equal"):
        return f"must be a number {'>' if kind == 'greater_than' else '>='} {ctx.get('gt', ctx.get('ge'))}"
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    return message.replace("Input should be", "should be")


_NOT_A_NAME = {
    "boolean": " is true or false, not a name (unquoted, YAML reads on, off, yes and no as booleans)",
    "null": " is null, not a name (unquoted, YAML reads ~ as null)",
}


def _key_message(error: Any) -> str | None:
    """For a mapping key that is not a string (YAML reads `no:` as false, `123:` as a number),
    what is wrong with it; its mapping is the place (pydantic's loc puts `True` as `1`, an index
    the file does not have)."""
    if error["type"] != "string_type" or error["loc"][-1:] != ("[key]",):
        return None
    what = _NOT_A_NAME.get(json_kind(error["input"])) or f" is {_got(error['input'])}"
    return f"a key{what}: quote it"


def describe(error: ValidationError) -> list[str]:
    """One line per problem: `key.path: what is wrong`."""
    lines: list[str] = []
    for item in error.errors():
        key = _key_message(item)
        path = key_path(_location(item)[: -1 if key else None])
        message = key or _message(item)
        line = f"{path}: {message}" if path else message
        if line not in lines:
            lines.append(line)
    return lines
