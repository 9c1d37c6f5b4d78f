"""The SDK's stdio server transport, with every malformed message answered.

`mcp.server.stdio.stdio_server` reads one JSON-RPC message per line and drops what it cannot
parse without a word, so a client whose request had a flaw waits for its own timeout. Here the
SDK transport is kept (its stdout claim, framing and writer) and fed from a reader of our own:

- each line is decoded as strict UTF-8 and bounded (`max_message_size`, 4 MiB by default, as over
  HTTP); a line that is not UTF-8 gets `-32700`, an oversized one `-32600` (with its `id` when the
  start of the line shows it), and neither reaches the SDK;
- each line the SDK could not read is answered as `toolweave.mcp.malformed.answer` says, and so is
  a request whose `id` the SDK mistook for a notification's absence of one;
- blank lines are skipped; the server keeps serving after each malformed message;
- a client that closed its end of stdout has gone: serving ends as when it closes stdin (the
  SDK's writer failed with a `BrokenPipeError`, and the server crashed with its traceback);
- stdin (fd 0) is moved aside while serving, like the SDK does for its own reader, so a tool or
  child process reading stdin gets end-of-file instead of the client's messages;
- what a tool printed to `sys.stdout` is flushed (to stderr, where the SDK points fd 1 while
  serving) before fd 1 is given back to the wire.

Example:
    >>> MAX_MESSAGE_SIZE // 2**20  # MiB, the longest line read
    4

    Serving takes this process's stdin and stdout, so the example does not run it:

    >>> async with stdio_streams() as (read, write):  # takes over stdin/stdout  # doctest: +SKIP
    ...     await lowlevel.run(read, write, lowlevel.create_initialization_options())
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as mt
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from toolweave.mcp.malformed import answer, notification_answer, top_level_id
from toolweave.mcp.read_stream import ReadStream

MAX_MESSAGE_SIZE = 4 * 1024 * 1024
"""The longest line (bytes) read as one message, as the HTTP transport bounds a body."""
_CHUNK = 65536

Answer = Callable[[mt.JSONRPCError], Awaitable[None]]


class _Lines:
    """The lines of a file descriptor as text, bounded and strictly decoded; the rest answered."""

    def __init__(self, fd: int, max_size: int) -> None:
        self._fd = fd
        self._max = max_size
        self._buffer = bytearray()
        self._skipping = False
        self._ready: list[str] = []
        self._eof = False
        self._answer: Answer | None = None
        self._can_answer = anyio.Event()
        self.given: collections.deque[str] = collections.deque()
        """The lines handed to the SDK and not yet seen again on its read stream, oldest first."""
        self._pollable = not stat.S_ISREG(os.fstat(fd).st_mode)
        self._waiting: anyio.CancelScope | None = None

    def stop(self) -> None:
        """Read no more: the lines end (what was read already is still handed over)."""
        self._eof = True
        if self._waiting is not None:
            self._waiting.cancel()

    def answer_with(self, send: Answer) -> None:
        self._answer = send
        self._can_answer.set()

    async def _reply(self, error: mt.JSONRPCError) -> None:
        await self._can_answer.wait()
        assert self._answer is not None
        await self._answer(error)

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            if self._ready:
                line = self._ready.pop(0)
                self.given.append(line)
                return line
            if self._eof:
                raise StopAsyncIteration
            await self._fill()

    async def _read(self) -> bytes | None:
        """The next chunk (empty at end of file), or None when there was nothing to read after all."""
        if self._pollable:
            try:
                with anyio.CancelScope() as self._waiting:
                    await anyio.wait_readable(self._fd)
            except PermissionError:  # the event loop cannot poll it (/dev/null): read it in a thread
                self._pollable = False
            self._waiting = None
            if self._eof:
                return None
        if not self._pollable:
            os.set_blocking(self._fd, True)
            return await anyio.to_thread.run_sync(os.read, self._fd, _CHUNK, abandon_on_cancel=True)
        try:
            return os.read(self._fd, _CHUNK)
        except BlockingIOError:
            return None

    async def _fill(self) -> None:
        chunk = await self._read()
        if chunk is None:
            return
        if not chunk:
            self._eof = True
            if self._buffer and not self._skipping:
                await self._line(bytes(self._buffer))
            self._buffer.clear()
            return
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            await self._take(chunk[start:end], complete=True)
            start = end + 1
        await self._take(chunk[start:], complete=False)

    async def _take(self, part: bytes, *, complete: bool) -> None:
        if self._skipping:
            self._skipping = not complete
            return
        self._buffer += part
        if len(self._buffer) > self._max:
            head = self._buffer[:4096].decode("utf-8", "replace")
            self._buffer.clear()
            self._skipping = not complete
            message = f"Invalid Request: the message is longer than {self._max} bytes"
            await self._reply(
                mt.JSONRPCError(jsonrpc="2.0", id=top_level_id(head), error=_data(mt.INVALID_REQUEST, message))
            )
            return
        if complete:
            line = bytes(self._buffer)
            self._buffer.clear()
            await self._line(line)

    async def _line(self, raw: bytes) -> None:
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            message = "Parse error: the message is not valid UTF-8"
            await self._reply(mt.JSONRPCError(jsonrpc="2.0", id=None, error=_data(mt.PARSE_ERROR, message)))
            return
        if text:
            self._ready.append(text)


def _data(code: int, message: str) -> mt.ErrorData:
    return mt.ErrorData(code=code, message=message)


def _reason(error: Exception) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            return str(errors()[0]["msg"])
        except (IndexError, KeyError, TypeError):
            pass
    return "the message cannot be read"


class _Answering(ReadStream):
    """The SDK's read stream, answering (instead of passing on) each message it could not read."""

    def __init__(self, stream: Any, lines: _Lines, send: Answer) -> None:
        super().__init__(stream)
        self._lines = lines
        self._send = send

    def stop_reading(self) -> None:
        """Take no more messages from stdin; the stream ends once those already read are through."""
        self._lines.stop()

    async def receive(self) -> Any:
        while True:
            item = await self._stream.receive()
            text = self._lines.given.popleft() if self._lines.given else ""
            if isinstance(item, Exception):
                error = answer(text, _reason(item))
            elif isinstance(item.message, mt.JSONRPCNotification):
                error = notification_answer(text)
                if error is None:
                    return item
            else:
                return item
            if error is not None:
                await self._send(error)


@asynccontextmanager
async def _claimed_stdin() -> AsyncIterator[int]:
    """A private descriptor for the wire on fd 0, with fd 0 itself pointed at the null device."""
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    was_blocking = os.get_blocking(private)
    os.set_blocking(private, False)
    try:
        yield private
    finally:
        os.set_blocking(private, was_blocking)
        os.dup2(private, 0)
        os.close(private)


class _Reporting:
    """The SDK's write stream, telling `written` about each message sent."""

    def __init__(self, stream: Any, written: Callable[[Any], None]) -> None:
        self._stream = stream
        self._written = written

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def send(self, item: SessionMessage) -> None:
        await self._stream.send(item)
        self._written(item.message)

    async def __aenter__(self) -> _Reporting:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._stream.__aexit__(*exc_info)


@asynccontextmanager
async def stdio_streams(
    *, max_message_size: int = MAX_MESSAGE_SIZE, written: Callable[[Any], None] | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams of an MCP server on this process's stdin/stdout.

    Args:
        max_message_size: The longest message (bytes); longer ones are answered and skipped.
        written: Called with each JSON-RPC message once it is handed to the writer.
    """
    async with _claimed_stdin() as fd:
        lines = _Lines(fd, max_message_size)
        try:
            async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]

                async def send(error: mt.JSONRPCError) -> None:
                    await write.send(SessionMessage(error))

                lines.answer_with(send)
                try:
                    yield _Answering(read, lines, send), write if written is None else _Reporting(write, written)
                finally:
                    _flush_stray_output()
        except* BrokenPipeError:
            pass  # the client closed its end of stdout: it has gone, as when it closes stdin


def _flush_stray_output() -> None:
    """Write out what tools printed to `sys.stdout` while serving, before the SDK gives fd 1 back
    to the wire: the buffer was filled while fd 1 pointed at stderr, and flushed later it would
    reach the client as a message."""
    with contextlib.suppress(OSError, ValueError):  # (a closed or broken stdout: nothing to keep)
        sys.stdout.flush()
