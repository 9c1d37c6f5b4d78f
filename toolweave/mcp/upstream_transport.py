"""How a gateway reaches one upstream: the connection under each of its sessions (`UpstreamTransport`).

`UpstreamTransport.open` opens the streams the `mcp` client speaks over, by the remote's target:

- stdio: the SDK's `stdio_client` starts the command; its stderr goes through a pipe of ours and
  is logged line by line on `toolweave.upstream` (INFO), prefixed `[name]`; the last
  `STDERR_TAIL` lines are kept in `stderr_tail` (an upstream's own traceback says why it failed
  to start or died). A line is cut at `LOGGED_LINE` characters (marked ` [...]`): an upstream
  writing megabytes without a newline (a progress bar's `\r`s, a dump) costs the gateway neither
  memory nor a megabyte log record. On close the SDK closes stdin, then terminates and kills the process group,
  and reaps it; the last lines still get through (for up to a second);
- streamable HTTP (`streamable_http_client`, over an `httpx2` client with the target's headers and
  credentials): the upstream's refusal of a message we posted (`HTTP 401 Unauthorized`), which
  the SDK reports only as "Server returned an error response", is kept in `refused`; one message
  of an event stream is read up to `MAX_EVENT_BYTES` (10 MiB, as an OpenAPI answer), not the
  SDK's 1 MiB, which a screenshot or a file passes;
- the legacy HTTP+SSE transport (`sse_client`): a message the upstream refuses (`HTTP 404` for a
  session another replica holds) ends the connection, kept in `refused` as for streamable HTTP,
  since the SDK's writer stops at the first refusal and the request would wait for its timeout.

Example:
    >>> from toolweave.server.remote import RemoteServer
    >>> transport = UpstreamTransport(RemoteServer.stdio("github-mcp-server", ["stdio"], name="gh"))
    >>> transport.stderr_tail.maxlen, transport.refused  # nothing heard before the first connection
    (20, None)
    >>> async with transport.open() as (read, write):  # starts github-mcp-server  # doctest: +SKIP
    ...     ...
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from mcp import StdioServerParameters, stdio_client

from toolweave.mcp.read_stream import EndsWhenRefused
from toolweave.mcp.upstream_stdout import reading

if TYPE_CHECKING:
    from toolweave.server.remote import HttpTarget, RemoteServer, SseTarget, StdioTarget

logger = logging.getLogger("toolweave.upstream")
STDERR_TAIL = 20
"""How many of an upstream's last stderr lines are kept to explain a failure."""
MAX_EVENT_BYTES = 10 * 2**20
"""The largest message a streamable HTTP upstream may send as one server-sent event."""
IDLE_READ = 300.0
"""Seconds a streamable HTTP upstream may keep an answer to a request waiting before the read
fails (a request's own bound is `Upstream.request`'s timeout); the stream of its own messages,
which may be silent for hours, is read without one (`_stream_waits`)."""
LOGGED_LINE = 8192
"""The most characters of one line an upstream says beside its answers (a stderr line, a log
message) that reach the gateway's log; the rest is dropped."""


async def _stream_waits(request: Any) -> None:
    """Read the upstream's stream of its own messages (the `GET` a handshake-era session opens)
    without a read timeout: the SDK counts each silent `IDLE_READ` as a failure and stops opening
    the stream after two in a session, so an upstream quiet for ten minutes (one that sends no
    keep-alive) was never heard from again: its `list_changed` lost while it showed as up. A dead
    upstream is still found by the requests, which its session is restarted for."""
    if request.method == "GET":
        request.extensions["timeout"] = {**request.extensions.get("timeout", {}), "read": None}


def capped(text: str, *, longer: bool = False) -> str:
    """`text` cut at `LOGGED_LINE` characters, marked ` [...]` when it was (or is known to be `longer`)."""
    if not longer and len(text) <= LOGGED_LINE:
        return text
    return text[:LOGGED_LINE] + " [...]"


class UpstreamTransport:
    """Opens the connections to `remote`'s upstream (by its target, as it is when opened), and
    keeps what the upstream said beside the protocol: its last stderr lines, its last refusal."""

    def __init__(self, remote: RemoteServer) -> None:
        self._remote = remote
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self.refused: str | None = None
        """An HTTP upstream's last refusal of a message (`HTTP 401 Unauthorized`), which the SDK
        reports only as "Server returned an error response"; None once one is accepted."""

    def open(self, auth: Any = None) -> AbstractAsyncContextManager[Any]:
        """The read and write streams of a new connection; `auth` (HTTP) replaces the target's
        own credentials."""
        from toolweave.server.remote import SseTarget, StdioTarget

        target = self._remote.target
        if isinstance(target, StdioTarget):
            return self._stdio(target)
        if isinstance(target, SseTarget):
            return self._sse(target, auth or target.auth)
        return self._http(target, auth or target.auth)

    def hint(self) -> str:
        """What the target may explain about a failure, to add to it ("" if nothing)."""
        from toolweave.server.remote import HttpTarget, SseTarget

        target = self._remote.target
        if isinstance(target, HttpTarget) and not isinstance(target, SseTarget):
            path = target.url.split("?", 1)[0].rstrip("/")
            if path.endswith("/sse"):  # some clients try the legacy transport when streamable HTTP fails
                return " (a URL ending in /sse is usually a legacy SSE server: give it `type: sse`)"
        return ""

    @asynccontextmanager
    async def _stdio(self, target: StdioTarget) -> AsyncIterator[Any]:
        params = StdioServerParameters(
            command=target.command,
            args=list(target.args),
            env=dict(target.env) if target.env else None,
            cwd=target.cwd,
        )
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        errlog = os.fdopen(write_fd, "w")
        done = anyio.Event()
        async with anyio.create_task_group() as tasks:
            try:
                with reading(self._remote.name):  # (the client's reader task keeps the mark)
                    async with stdio_client(params, errlog=errlog) as streams:
                        errlog.close()  # the child has its own copy; EOF comes when it exits
                        tasks.start_soon(self._pump_stderr, read_fd, done)
                        read_fd = -1
                        yield streams
            finally:
                errlog.close()
                if read_fd >= 0:
                    os.close(read_fd)
                    done.set()
                with anyio.move_on_after(1.0, shield=True):  # let the last lines (a traceback) through
                    await done.wait()
                tasks.cancel_scope.cancel()

    @asynccontextmanager
    async def _http(self, target: HttpTarget, auth: Any) -> AsyncIterator[Any]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        timeout = httpx2.Timeout(30.0, read=IDLE_READ)
        hooks: dict[str, list[Callable[..., Any]]] = {"request": [_stream_waits], "response": [self._heard]}
        client = httpx2.AsyncClient(headers=dict(target.headers or {}), timeout=timeout, auth=auth, event_hooks=hooks)
        self.refused = None
        opened = streamable_http_client(target.url, http_client=client, max_sse_event_size=MAX_EVENT_BYTES)
        async with client, opened as streams:
            yield streams

    async def _heard(self, response: Any) -> None:
        """Note how the upstream answered a message we posted (a refused one: its status)."""
        if response.request.method == "POST":
            refused = response.status_code >= 400
            self.refused = f"HTTP {response.status_code} {response.reason_phrase}".rstrip() if refused else None

    @asynccontextmanager
    async def _sse(self, target: SseTarget, auth: Any) -> AsyncIterator[Any]:
        import httpx2
        from mcp.client.sse import sse_client

        read: EndsWhenRefused | None = None

        async def heard(response: Any) -> None:
            await self._heard(response)
            if self.refused is not None and read is not None:
                read.refuse()  # the SDK posts nothing more over this connection

        def client(headers: Any = None, timeout: Any = None, auth: Any = None) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, event_hooks={"response": [heard]})

        # a stream silent for 300 s (the SDK's read timeout; servers ping while idle) counts as lost
        headers = dict(target.headers or {})
        self.refused = None
        async with sse_client(
            target.url, headers=headers, timeout=30.0, auth=auth, httpx_client_factory=client
        ) as (stream, write):
            read = EndsWhenRefused(stream)
            yield read, write

    async def _pump_stderr(self, fd: int, done: anyio.Event) -> None:
        line = b""  # the line read so far, kept to `LOGGED_LINE` bytes and one more (it goes on)
        try:
            while True:
                await anyio.wait_readable(fd)
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    break
                *ended, rest = chunk.split(b"\n")
                for part in ended:
                    self._log_stderr((line + part)[: LOGGED_LINE + 1])
                    line = b""
                line = (line + rest)[: LOGGED_LINE + 1]
        finally:
            if line:
                self._log_stderr(line)
            os.close(fd)
            done.set()

    def _log_stderr(self, line: bytes) -> None:
        longer = len(line) > LOGGED_LINE
        text = capped(line[:LOGGED_LINE].decode("utf-8", "replace").rstrip(), longer=longer)
        if text:
            self.stderr_tail.append(text)
            logger.info("[%s] %s", self._remote.name, text)
