"""A transport's read stream, passed through: the base of the streams that watch or answer what they read.

The SDK hands a session its read stream (an anyio memory receive stream of `SessionMessage`s or
exceptions). `ReadStream` wraps one and passes everything through (`receive`, iteration, closing,
attributes such as `last_context`); a variant overrides only what it changes: `WatchedStream`
reports the end of the connection, `EndsWhenRefused` ends a legacy SSE connection the upstream
stopped taking messages over, `ScrubbedMessages` takes the secrets in flight out of
the messages an upstream sends, and the stdio transport's reader answers malformed
messages.

Example:
    >>> import anyio
    >>> async def demo() -> list[str]:
    ...     ended: list[str] = []
    ...     send, receive = anyio.create_memory_object_stream[str](1)
    ...     async with WatchedStream(receive, lambda: ended.append("ended")) as watched:
    ...         await send.send("hello")
    ...         await send.aclose()
    ...         return [message async for message in watched] + ended
    >>> anyio.run(demo)
    ['hello', 'ended']
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

import anyio
import mcp.types as mt
from mcp.shared.message import SessionMessage

from toolweave.transforms.redact import IN_FLIGHT


class ReadStream:
    """A read stream passing everything through to `stream`; subclasses override `receive`."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`
        return getattr(self._stream, name)

    async def receive(self) -> Any:
        return await self._stream.receive()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class WatchedStream(ReadStream):
    """A read stream that calls `on_end()` when the connection ends (or the stream is closed)."""

    def __init__(self, stream: Any, on_end: Callable[[], None]) -> None:
        super().__init__(stream)
        self._on_end = on_end

    async def receive(self) -> Any:
        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    async def aclose(self) -> None:
        self._on_end()
        await self._stream.aclose()


class EndsWhenRefused(ReadStream):
    """A legacy SSE upstream's read stream, which ends once `refuse()` is called: the upstream
    refused a message we posted, and the SDK's writer task stops at the first refusal, so nothing
    is posted over this connection any more and a request in flight would wait for an answer that
    never comes (until its timeout)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._refused = False
        self._waiting: anyio.CancelScope | None = None

    def refuse(self) -> None:
        self._refused = True
        if self._waiting is not None:
            self._waiting.cancel()

    async def receive(self) -> Any:
        if not self._refused:
            with anyio.CancelScope() as self._waiting:
                return await self._stream.receive()
        raise anyio.EndOfStream


class ScrubbedMessages(ReadStream):
    """An upstream's read stream whose messages reach the SDK's session without the secrets in
    flight: those of the calls running now (the session's client span records an error's message
    as it reads it, before toolweave's own redaction sees the error), and the credentials the
    gateway presents to its upstreams (an upstream echoing its `Authorization` header in a result,
    an error or a notification must not hand the gateway's secret to the caller)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        IN_FLIGHT.watched = True

    async def receive(self) -> Any:
        item = await self._stream.receive()
        if not IN_FLIGHT.counts or not isinstance(item, SessionMessage):
            return item
        sent = item.message
        if isinstance(sent, mt.JSONRPCError):
            error = sent.error
            message, data = IN_FLIGHT.scrub(error.message), IN_FLIGHT.scrub(error.data)
            if message is not error.message or data is not error.data:
                scrubbed = error.model_copy(update={"message": message, "data": data})
                return SessionMessage(sent.model_copy(update={"error": scrubbed}), item.metadata)
        elif isinstance(sent, mt.JSONRPCResponse):
            result = IN_FLIGHT.scrub(sent.result)
            if result is not sent.result:
                return SessionMessage(sent.model_copy(update={"result": result}), item.metadata)
        elif isinstance(sent, mt.JSONRPCNotification | mt.JSONRPCRequest) and sent.params:
            params = IN_FLIGHT.scrub(sent.params)
            if params is not sent.params:
                return SessionMessage(sent.model_copy(update={"params": params}), item.metadata)
        return item
