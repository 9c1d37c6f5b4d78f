"""`${VAR}` and `${VAR:-default}` in config strings, expanded before validation.

`$${...}` keeps a literal `${...}`. A variable that is not set and has no default is an error
naming the variable and the key path where it was used (never a value).

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
    """A copy of parsed config `data` with variables expanded in every string value (not in keys)."""
    env = os.environ if environ is None else environ
    if isinstance(data, str):
        return expand_string(data, env, where)
    if isinstance(data, dict):
        return {key: expand(value, environ=env, where=(*where, key)) for key, value in data.items()}
    if isinstance(data, list):
        return [expand(item, environ=env, where=(*where, index)) for index, item in enumerate(data)]
    return data
