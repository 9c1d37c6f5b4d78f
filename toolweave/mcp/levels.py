"""`logging/setLevel` for handshake-era connections: each connection's minimum log level.

A 2025-era client may send `logging/setLevel`; from then on, log messages below that level are
not sent on its connection. (The 2026-07-28 revision removed the method: a modern client puts
`io.modelcontextprotocol/logLevel` in each request's `_meta`, and the SDK filters for us.)

Example:
    >>> from contextlib import ExitStack
    >>> from types import SimpleNamespace
    >>> connection = SimpleNamespace(exit_stack=ExitStack())  # what the SDK keeps per connection
    >>> levels = ConnectionLevels()
    >>> levels.set(connection, "warning")
    >>> levels.allows(connection, "info"), levels.allows(connection, "error")
    (False, True)
    >>> connection.exit_stack.close()  # the connection closes: its level is forgotten
    >>> levels.allows(connection, "info")
    True
"""

from __future__ import annotations

from typing import Any

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_RANK = {level: rank for rank, level in enumerate(LEVELS)}


class ConnectionLevels:
    """The minimum log level each connection asked for (connections that never asked get all)."""

    def __init__(self) -> None:
        self._minimum: dict[int, int] = {}

    def set(self, connection: Any, level: str) -> None:
        """Record `level` for `connection`; forgotten when the connection closes."""
        key = id(connection)
        if key not in self._minimum:
            connection.exit_stack.callback(self._minimum.pop, key, None)
        self._minimum[key] = _RANK[level]

    def allows(self, connection: Any, level: str) -> bool:
        """Whether a message at `level` may be sent on `connection`."""
        minimum = self._minimum.get(id(connection))
        return minimum is None or _RANK.get(level, 0) >= minimum
