"""Which protocol era a gateway speaks with one upstream, and why (`Negotiation`).

- The 2025 `initialize` handshake first: every upstream so far speaks it, the gateway's
  upstream features were built on it (spontaneous `list_changed`, logging), and a server on an
  earlier SDK may end its session at a request that comes before the handshake (mcp 1.x raises on
  one), so probing `server/discover` first would break upstreams that work today.
- An upstream that refuses the handshake (method not found, unsupported protocol version,
  invalid request) is asked `server/discover` and spoken to in the 2026-07-28 era; when the
  refused connection cannot go on, the next one (at once, not after backoff) starts with it.
- An upstream that takes the handshake but lists a tool with task support (toolweave's
  `_meta["io.toolweave/taskSupport"]`) serves the tasks extension, which only the 2026-07-28
  revision has, so it speaks that revision too. The handshake would hide what its tools do: a
  `required` tool refuses every call (`-32021`), an `optional` one cannot answer with a task, and
  input its tools ask for cannot reach the gateway's client. The gateway connects to it again,
  at once, with `server/discover` (a stdio upstream is started once more). An upstream that then
  refuses `server/discover` is spoken to with the handshake from then on.

Example:
    >>> negotiation = Negotiation()
    >>> negotiation.era = "2025"  # as `negotiate` leaves it after a handshake
    >>> try:
    ...     negotiation.check_listing(["none", "optional"])
    ... except Renegotiate as switch:
    ...     print(switch)
    it lists tools with task support (2026-07-28); connecting again with server/discover
    >>> negotiation.era  # the next connection starts with server/discover
    '2026'
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import mcp.types as mt
from mcp import ClientSession, MCPError

logger = logging.getLogger("toolweave.upstream")
_HANDSHAKE_REFUSED = (mt.METHOD_NOT_FOUND, mt.UNSUPPORTED_PROTOCOL_VERSION, mt.INVALID_REQUEST)
_LONG_RUNNING = ("optional", "required")


class Renegotiate(Exception):
    """This connection cannot go on in the era chosen now: connect again at once (not after backoff)."""


class Negotiation:
    """The era of one upstream's sessions: `"2025"` (the `initialize` handshake), `"2026"`
    (`server/discover`), or None before the first connection; see the module docstring."""

    def __init__(self) -> None:
        self.era: str | None = None
        self._chosen = False
        """2026 was chosen for what the upstream lists, not forced by a refused handshake."""
        self._settled = False
        """The chosen 2026 era was refused: the handshake from now on."""

    async def negotiate(self, session: ClientSession, label: str) -> None:
        """Open `session` in the era chosen so far (the handshake, first).

        Raises:
            Renegotiate: the handshake was refused, and `server/discover` too on this connection;
                or `server/discover`, chosen for what the upstream lists, was refused.
        """
        if self.era == "2026":
            try:
                await session.discover()
            except MCPError as refused:
                if not self._chosen:
                    raise
                logger.warning(
                    "[%s] server/discover refused (%s): its tools with task support are called as one request "
                    "each, over the 2025 handshake from now on",
                    label,
                    refused.error.message,
                )
                self.era, self._chosen, self._settled = "2025", False, True
                # a refused discover may still have settled the connection's era (the SDK's server does)
                raise Renegotiate("connecting again with the 2025 handshake") from refused
            return
        try:
            await session.initialize()
        except MCPError as refused:
            if refused.error.code not in _HANDSHAKE_REFUSED:
                raise
            self.era = "2026"
            try:
                await session.discover()
            except MCPError:
                raise Renegotiate("handshake refused; connecting again with server/discover") from refused
            return
        self.era = "2025"

    def check_listing(self, task_support: Iterable[str]) -> None:
        """After a handshake-era connection listed its tools (their `task_support`): switch to
        the 2026 era if one of them is long-running.

        Raises:
            Renegotiate: the next connection is to start with `server/discover`.
        """
        if self.era != "2025" or self._settled or not any(value in _LONG_RUNNING for value in task_support):
            return
        self.era, self._chosen = "2026", True
        raise Renegotiate("it lists tools with task support (2026-07-28); connecting again with server/discover")
