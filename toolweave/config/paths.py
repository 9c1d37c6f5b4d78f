"""Key paths as users read them: `mcpServers.github.tools.search.args.q.hide`, `python[0].import`.

Example:
    >>> key_path(("mcpServers", "github", "tools", "a.b", "args", 0))
    'mcpServers.github.tools["a.b"].args[0]'
    >>> key_path(("tools", "search"), start="python[0]")
    'python[0].tools.search'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

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
