"""The streams of an upstream session that keep argument values out of the SDK's send spans.

While tracing is configured, the `mcp` SDK's client records an upstream's JSON-RPC error message
in its span of the request, and an upstream's message often quotes the arguments it was called
with (`toolweave.telemetry.withheld`). `withholding` wraps a new session's streams:
`NotedSends` notes the arguments of each request written, `NotedReads` hands the session
an error answering one with those values `[redacted]` (toolweave takes the upstream's own message
back with `restored` where it catches the error). Without tracing the streams stay as they are.

Example:
    >>> import anyio
    >>> import mcp.types as mt
    >>> from mcp.shared.message import SessionMessage
    >>> async def demo() -> str:
    ...     sent = SentArguments()
    ...     to_upstream, upstream_reads = anyio.create_memory_object_stream[Any](1)
    ...     upstream_answers, from_upstream = anyio.create_memory_object_stream[Any](1)
    ...     async with upstream_reads, upstream_answers:
    ...         async with NotedSends(to_upstream, sent) as write, NotedReads(from_upstream, sent) as read:
    ...             params = {"name": "search", "arguments": {"q": "ada lovelace"}}
    ...             call = mt.JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/call", params=params)
    ...             await write.send(SessionMessage(call))
    ...             failed = mt.ErrorData(code=-32603, message="no page for 'ada lovelace'")
    ...             await upstream_answers.send(SessionMessage(mt.JSONRPCError(jsonrpc="2.0", id=1, error=failed)))
    ...             return (await read.receive()).message.error.message
    >>> anyio.run(demo)
    "no page for '[redacted]'"
"""

from __future__ import annotations

from typing import Any, Protocol

from toolweave.mcp.read_stream import ReadStream
from toolweave.telemetry.providers import tracing_configured
from toolweave.telemetry.withheld import SentArguments


def withholding(read: Any, write: Any) -> tuple[Any, Any]:
    """A new upstream session's `read` and `write` streams, wrapped to withhold argument values
    from the SDK while tracing is configured (the SDK's send spans record an upstream's error
    messages); else as they are."""
    if not tracing_configured():
        return read, write
    sent = SentArguments()
    return NotedReads(read, sent), NotedSends(write, sent)


class Noter(Protocol):
    """What notes the messages a session writes and changes those it reads in answer (the
    arguments of each request: `SentArguments`; the lists asked for: `upstream_lists.ListRequests`)."""

    def sending(self, item: Any) -> None: ...

    def received(self, item: Any) -> Any: ...


class NotedSends:
    """An upstream's write stream that tells `sent` each message it sends (`Noter.sending`);
    everything passes through."""

    def __init__(self, stream: Any, sent: Noter) -> None:
        self._stream, self._sent = stream, sent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def send(self, item: Any) -> None:
        self._sent.sending(item)  # before it goes: the answer may be read before `send` returns
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> NotedSends:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class NotedReads(ReadStream):
    """An upstream's read stream whose messages reach the SDK's session as `sent` changes them
    (`Noter.received`: JSON-RPC errors without the argument values of the requests they answer)."""

    def __init__(self, stream: Any, sent: Noter) -> None:
        super().__init__(stream)
        self._sent = sent

    async def receive(self) -> Any:
        return self._sent.received(await self._stream.receive())
