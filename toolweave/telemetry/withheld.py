"""No argument value of a request to an upstream reaches the SDK's span of it: `SentArguments`.

The `mcp` SDK wraps each request its client sends in a CLIENT span (`MCP send tools/call <name>`)
and, when the answer is a JSON-RPC error, makes the error's message that span's status
description — as its session reads the error, before toolweave sees it, and an ended span cannot
be changed. An upstream's message often quotes what it was called with (`HTTP 500 for url
'...?q=<the caller's query>&api_key=<an injected key>'`). So a session to an upstream opened
while tracing is configured (`toolweave.mcp.upstream_withheld`) notes the arguments of each
request it writes (`SentArguments.sending`) until the request is answered or cancelled, and an
error that answers one reaches the session with each of those values `[redacted]` in its message
(`SentArguments.received`); the upstream's own message and data ride along in a `Withheld` as
the error's `data`, which the SDK's span does not record. toolweave takes them back
(`restored`) where it catches the SDK's `MCPError`, before anything reads it: the client, the
logs and masking get the message exactly as before. Without an SDK none of this is in the
session; with one, it costs a request ~1 µs.

Which values: every text and number in the arguments (the caller's own, injected, hidden
defaults alike), at any depth, nested keys too; as sent, JSON-escaped or URL-encoded. Booleans
and nulls are left: they say too little. A value shorter than `WHOLE_WORD_BELOW` characters is
redacted only where it stands as a word of its own (`q=x`, not the `x` of `example`).

Example:
    >>> sent = values_in({"q": "x", "key": "a/b c"})
    >>> withhold("HTTP 500 for url 'https://api.example.test/v1?q=x&key=a%2Fb+c'", sent)
    "HTTP 500 for url 'https://api.example.test/v1?q=[redacted]&key=[redacted]'"
    >>> held = Withheld("the upstream's own message", None)
    >>> held  # its repr never shows the message
    Withheld(...)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import mcp.types as mt
from mcp import MCPError
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage

from toolweave.core.shown import longest_first, quoted_forms

REDACTED = "[redacted]"
WHOLE_WORD_BELOW = 4
"""A value shorter than this is redacted only where no letter, digit or `_` touches it."""
CANCELLED = "notifications/cancelled"


@dataclass(frozen=True, slots=True, repr=False)
class Withheld:
    """The upstream's own message and data of an error the SDK read without argument values."""

    message: str
    data: Any

    def __repr__(self) -> str:
        return "Withheld(...)"


class SentArguments:
    """The arguments of the requests in flight on one upstream session, by request id (see the
    module docs); the session's write stream calls `sending`, its read stream `received`."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: dict[Any, Any] = {}

    def __len__(self) -> int:
        """How many requests with arguments are waiting for their answer."""
        return len(self._pending)

    def sending(self, item: Any) -> None:
        """Note the arguments of `item` (what the session writes) if it is a request with some;
        forget those of a request it cancels."""
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, mt.JSONRPCRequest):
            arguments = message.params.get("arguments") if message.params else None
            if arguments:
                self._pending[coerce_request_id(message.id)] = arguments
        elif self._pending and isinstance(message, mt.JSONRPCNotification) and message.method == CANCELLED:
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, str | int):
                self._pending.pop(coerce_request_id(cancelled), None)

    def received(self, item: Any) -> Any:
        """`item` (what the session reads) as the session is to see it: an error answering a noted
        request without the values of its arguments in the message (`Withheld` in its `data`)."""
        if not self._pending or not isinstance(item, SessionMessage):
            return item
        message = item.message
        if not isinstance(message, (mt.JSONRPCResponse, mt.JSONRPCError)) or message.id is None:
            return item
        arguments = self._pending.pop(coerce_request_id(message.id), None)
        if arguments is None or isinstance(message, mt.JSONRPCResponse):
            return item
        error = message.error
        text = withhold(error.message, values_in(arguments))
        if text == error.message:
            return item
        held = error.model_copy(update={"message": text, "data": Withheld(error.message, error.data)})
        return SessionMessage(message.model_copy(update={"error": held}), item.metadata)


def restored(error: MCPError) -> MCPError:
    """`error` with the message and data the upstream sent (those `SentArguments` withheld from the
    SDK), or `error` itself."""
    held = error.error.data
    if isinstance(held, Withheld):
        return MCPError(error.error.code, held.message, held.data)
    return error


def values_in(arguments: Any) -> set[str]:
    """Every text and number in `arguments` (nested keys too, not the arguments' own names), in
    each form an upstream may quote it: as sent, JSON-escaped, URL-encoded."""
    found: set[str] = set()
    if isinstance(arguments, dict):
        for value in arguments.values():
            _collect(value, found)
    else:
        _collect(arguments, found)
    found.discard("")
    return found


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.update(quoted_forms(value))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        found.add(str(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            _collect(key, found)
            _collect(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, found)


def withhold(text: str, values: Collection[str]) -> str:
    """`text` with each of `values` replaced by `[redacted]`, in one pass (the longest first)."""
    if not any(value in text for value in values):
        return text
    return longest_first(values, whole_words_below=WHOLE_WORD_BELOW).sub(REDACTED, text)
