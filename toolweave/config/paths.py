"""Key paths as users read them: `mcpServers.github.tools.search.args.q.hide`, `python[0].import`;
and `call_at`, which reports a library object's refusal of its options at the key that gave them.

Example:
    >>> key_path(("mcpServers", "github", "tools", "a.b", "args", 0))
    'mcpServers.github.tools["a.b"].args[0]'
    >>> key_path(("tools", "search"), start="python[0]")
    'python[0].tools.search'
    >>> call_at(int, "ten", where="server.tasks.keep")
    Traceback (most recent call last):
    ...
    toolweave.core.errors.ConfigError: server.tasks.keep: invalid literal for int() with base 10: 'ten'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from toolweave.core.errors import ConfigError

_PLAIN = re.compile(r"^[A-Za-z0-9_$-]+$")


def key_path(parts: Iterable[Any], *, start: str = "") -> str:
    """Join location parts: names with dots, list indexes in brackets, odd keys quoted.

    `start` is an already formatted path to continue (`key_path(["tools", "a"], start="python[0]")`).
    """
    out = start
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN.match(str(part)):
            out += f".{part}" if out else str(part)
        else:
            out += f"[{json.dumps(str(part))}]"
    return out


def call_at(factory: Any, *args: Any, where: str, **kwargs: Any) -> Any:
    """`factory(*args, **kwargs)`, with a library's `TypeError`/`ValueError` turned into a `ConfigError`."""
    try:
        return factory(*args, **kwargs)
    except (TypeError, ValueError) as error:
        raise ConfigError(str(error), path=where) from None
