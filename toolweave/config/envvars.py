"""`${VAR}` and `${VAR:-default}` in config strings, expanded before validation.

`$${...}` keeps a literal `${...}`. A variable that is not set and has no default is an error
naming the variable and the key path where it was used (never a value); `expand_all` collects
every such problem of a file at once.

Example:
    >>> expand({"headers": {"Authorization": "Bearer ${TOKEN:-none}"}}, environ={})
    {'headers': {'Authorization': 'Bearer none'}}
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from toolweave.config.paths import key_path
from toolweave.core.errors import ConfigError

_REFERENCE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}|\$\{([^}]*)\}?")


def expand_string(text: str, environ: Mapping[str, str], where: tuple[Any, ...] = ()) -> str:
    """`text` with every `${VAR}` / `${VAR:-default}` replaced from `environ`."""
    if "$" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole == "$$":
            return "$"
        name, default, broken = match.group(1), match.group(2), match.group(3)
        if name is None:
            shown = f"${{{broken}}}" if whole.endswith("}") else whole
            raise ConfigError(
                f"{shown!r} is not a valid variable reference: write ${{NAME}} or ${{NAME:-default}}",
                path=key_path(where),
            )
        value = environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise ConfigError(
                    f"environment variable {name} is not set (write ${{{name}:-default}} to give a default)",
                    path=key_path(where),
                )
            return default
        return value

    return _REFERENCE.sub(replace, text)


def expand(data: Any, *, environ: Mapping[str, str] | None = None, where: tuple[Any, ...] = ()) -> Any:
    """A copy of parsed config `data` with variables expanded in every string value (not in keys).

    Raises:
        ConfigError: for the first reference that cannot be expanded.
    """
    expanded, problems, _ = expand_all(data, environ=environ, where=where)
    if problems:
        raise problems[0]
    return expanded


def expand_all(
    data: Any, *, environ: Mapping[str, str] | None = None, where: tuple[Any, ...] = ()
) -> tuple[Any, list[ConfigError], dict[str, str]]:
    """`data` expanded as far as it can be, every reference that cannot be (an unexpanded string
    stays as written), and the values that came from the environment, each with the reference it
    came from (shown instead of the value wherever a command or URL is shown).

    Example:
        >>> _, problems, secrets = expand_all({"a": "${A}", "b": "${B}", "c": "${C}"}, environ={"C": "s3cr3t"})
        >>> [str(p).split(" (")[0] for p in problems], secrets
        (['a: environment variable A is not set', 'b: environment variable B is not set'], {'s3cr3t': '${C}'})
    """
    env = os.environ if environ is None else environ
    problems: list[ConfigError] = []
    secrets: dict[str, str] = {}

    def walk(value: Any, at: tuple[Any, ...]) -> Any:
        if isinstance(value, str):
            try:
                expanded = expand_string(value, env, at)
            except ConfigError as error:
                problems.append(error)
                return value
            if expanded != value:
                secrets.update(_referenced(value, env))
            return expanded
        if isinstance(value, dict):
            return {key: walk(item, (*at, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item, (*at, index)) for index, item in enumerate(value)]
        return value

    return walk(data, where), problems, secrets


def _referenced(text: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The non-empty values of the variables `text` refers to, each with its reference."""
    names = {match.group(1) for match in _REFERENCE.finditer(text) if match.group(1)}
    return {environ[name]: f"${{{name}}}" for name in names if environ.get(name)}
