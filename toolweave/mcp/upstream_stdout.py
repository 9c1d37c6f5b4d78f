"""An upstream's stdout line that is not JSON-RPC: one warning that names the upstream.

The SDK's stdio client skips a line of a server's stdout it cannot parse, and logs it with
`logger.exception`: an ERROR with a pydantic traceback that quotes the line. Servers that print
a banner ("Weather MCP server running on stdio") or a blank line work all the same, so every
`toolweave list` against one printed a traceback. `NotJsonRpc` turns that record into a one-line
WARNING naming the upstream (`reading(label)` marks whose stdout is read), without the line's
text: a stray line may hold anything.

Example:
    >>> import logging
    >>> record = logging.LogRecord("mcp.client.stdio", logging.ERROR, "", 1, SDK_MESSAGE, None, None)
    >>> with reading("weather"):
    ...     NotJsonRpc().filter(record)
    True
    >>> record.levelname, record.getMessage()
    ('WARNING', "upstream 'weather' wrote a line to stdout that is not JSON-RPC: skipped")
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar

SDK_MESSAGE = "Failed to parse JSONRPC message from server"
"""What the SDK's stdio client logs for a line it skipped."""
_READING: ContextVar[str | None] = ContextVar("toolweave_upstream_stdout", default=None)


class NotJsonRpc(logging.Filter):
    """The SDK's record of a skipped stdout line, as one warning naming the upstream."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == SDK_MESSAGE:
            record.msg = "upstream %r wrote a line to stdout that is not JSON-RPC: skipped"
            record.args = (_READING.get() or "?",)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


@contextmanager
def reading(label: str) -> Iterator[None]:
    """Mark the stdio client opened inside as `label`'s (its reader task inherits the mark), and
    install `NotJsonRpc` on the SDK's stdio logger (once)."""
    sdk = logging.getLogger("mcp.client.stdio")
    if not any(isinstance(found, NotJsonRpc) for found in sdk.filters):
        sdk.addFilter(NotJsonRpc())
    token = _READING.set(label)
    try:
        yield
    finally:
        with suppress(ValueError):  # (left in another context: nothing to restore there)
            _READING.reset(token)
