"""One upstream session per verified caller, for a mount that forwards the caller's own token.

A `RemoteServer.http(url, forward_caller_token=True)` lists its catalog over the gateway's own
session (with the mount's `auth=`, or none), but sends each call, `prompts/get` and
`resources/read` made for a verified caller over that caller's own session, opened on first use
with `Authorization: Bearer <the caller's token>` on every HTTP request of it. A session per
caller, not a header per request: the `mcp` client stamps its headers inside the session and
posts from the transport's own task, and an upstream on the 2025 handshake may bind its session
id to the user who opened it.

- The token is the one the HTTP edge verified (`ctx.auth.token`), never a header of the request.
  A request without one (stdio, an anonymous caller) fails with `UpstreamError` naming the
  upstream: never an anonymous call, never the gateway's own credentials in the caller's place.
- Sessions are pooled by a keyed digest of the token (the token itself is never a key, a log
  line or a `repr`); at most `max_sessions` are kept: opening one more retires the least recently
  used (closed once its requests in flight have ended). A session is closed after `idle_timeout`
  seconds unused, when its token expires (`ctx.auth.expires_at`), when its connection is lost,
  and when the server stops (then too the upstream hears the session end, within
  `CLOSE_TIMEOUT`). A renewed token simply gets a new session.
- An upstream that refuses the caller's token (HTTP 401 or 403, when opening the session or on
  a later request) fails that request with `UpstreamError` saying so; the session is dropped.
- Served where no caller is verified (stdio, HTTP without `auth=`), such a mount only fails:
  `warn_without_callers` tells the operator at startup.

Example:
    >>> from toolweave.mcp.upstream import Upstream
    >>> from toolweave.server.remote import RemoteServer
    >>> upstream = Upstream(RemoteServer.http("https://notes.example/mcp", forward_caller_token=True))
    >>> upstream.callers.max_sessions, len(upstream.callers)  # sessions open as callers arrive
    (64, 0)
    >>> import httpx2
    >>> request = httpx2.Request("POST", "https://notes.example/mcp")
    >>> next(CallerToken("the-callers-token").auth_flow(request)).headers["authorization"]
    'Bearer the-callers-token'
    >>> await tasks.start(upstream.callers.run)  # in the server's lifespan  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Generator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
from anyio.abc import TaskGroup, TaskStatus
from mcp import ClientSession

from toolweave.core.context import Context
from toolweave.core.errors import UpstreamError
from toolweave.mcp.upstream_errors import describe_failure
from toolweave.transforms.redact import HeldSecret

if TYPE_CHECKING:
    from toolweave.mcp.upstream import Upstream

logger = logging.getLogger("toolweave.upstream")
CLOSE_TIMEOUT = 2.0
"""Seconds closing one caller session (telling the upstream) may take, the server's stop included."""
REFUSED_STATUSES = (401, 403)
"""HTTP answers by which an upstream refuses a caller's token."""


def warn_without_callers(server: Any, served: str) -> None:
    """Warn (once per remote) that a remote of `server` that forwards the caller's token is served
    where no caller is verified (`served`: "over stdio", ...): its requests will all fail."""
    for remote in server.remotes():
        if getattr(remote, "forward_caller_token", False):
            logger.warning(
                "[%s] forwards the caller's token, and the server is served %s, where no caller is "
                "verified: its calls, prompts and reads will fail",
                remote.name,
                served,
            )


class CallerToken(httpx2.Auth):
    """`Authorization: Bearer <the caller's token>` on every request of one caller's session;
    remembers whether the upstream refused it (401/403). The token is a secret in flight until
    `release()` (the session closed): kept out of logs and of what upstreams send back."""

    def __init__(self, token: str) -> None:
        self._token = token
        self._held = HeldSecret()
        self._held.hold(token)
        self.refused: int | None = None
        """The status by which the upstream last refused the token, or None."""

    def release(self) -> None:
        """The session is closed: the token is no longer in flight."""
        self._held.release()

    def __repr__(self) -> str:
        return "CallerToken(...)"

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._token}"
        response = yield request
        if response.status_code in REFUSED_STATUSES:
            self.refused = response.status_code

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        request.headers["Authorization"] = f"Bearer {self._token}"
        response = yield request
        if response.status_code in REFUSED_STATUSES:
            self.refused = response.status_code


class _CallerSession:
    """One caller's session: opened in the pool's task group, closed when `close()` is called."""

    def __init__(self, key: str, token: str, expires_at: int | None) -> None:
        self.key = key
        self.auth = CallerToken(token)
        self.expires_at = expires_at
        self.session: ClientSession | None = None
        self.opened = anyio.Event()
        self.closing = anyio.Event()
        self.closed = anyio.Event()
        self.scope = anyio.CancelScope(shield=True)
        self.in_flight = 0
        self.last_used = anyio.current_time()
        self.retired = False
        """Out of the pool (evicted, idle, lost): closed once its last request has ended."""

    def retire(self) -> None:
        self.retired = True
        if not self.in_flight:
            self.closing.set()

    def idle(self, now: float, idle_timeout: float) -> bool:
        """Unused for `idle_timeout` seconds."""
        return not self.in_flight and now - self.last_used >= idle_timeout

    async def until_closing_or_expired(self) -> None:
        """Wait until the session is to close, or its token expires (`expires_at`)."""
        if self.expires_at is None:
            await self.closing.wait()
            return
        with anyio.move_on_after(max(self.expires_at - time.time(), 0)):
            await self.closing.wait()


class CallerSessions:
    """The pool of per-caller sessions of one upstream (see the module docstring).

    Attributes:
        opened: How many caller sessions were opened so far (for operators and tests).
    """

    def __init__(self, upstream: Upstream, *, max_sessions: int, idle_timeout: float) -> None:
        self.upstream = upstream
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.opened = 0
        self._salt = os.urandom(16)
        self._sessions: OrderedDict[str, _CallerSession] = OrderedDict()
        self._tasks: TaskGroup | None = None
        self._held: set[_CallerSession] = set()
        """Every session whose task runs (pooled, or retired and closing)."""

    def __len__(self) -> int:
        """How many caller sessions are pooled now."""
        return len(self._sessions)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Hold the sessions (in a task group of this task) and close idle ones, until cancelled;
        every session is closed on the way out."""
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                task_status.started()
                try:
                    await self._sweep()
                finally:
                    await self._close_all()
        finally:
            self._tasks = None
            self._sessions.clear()

    async def _sweep(self) -> None:
        while True:
            await anyio.sleep(min(self.idle_timeout / 2, 30.0))
            now = anyio.current_time()
            for entry in [entry for entry in self._sessions.values() if entry.idle(now, self.idle_timeout)]:
                self._drop(entry)

    async def _close_all(self) -> None:
        """Close every session, telling the upstream (within `CLOSE_TIMEOUT`), then stop what is left."""
        self._tasks = None  # no new sessions from here on
        held = list(self._held)
        for entry in held:
            entry.closing.set()
        with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
            for entry in held:
                await entry.closed.wait()
        for entry in held:
            entry.scope.cancel()

    @asynccontextmanager
    async def use(self, ctx: Context, *, subject: str, tool: str | None) -> AsyncIterator[ClientSession]:
        """The session of the verified caller of `ctx` (opened if it has none) for one request.

        Raises:
            UpstreamError: the request has no verified caller token, the session cannot be opened,
                or the upstream refused the caller's token (then the session is dropped).
        """
        label = self.upstream.label
        token = ctx.auth.token if ctx.auth is not None else None
        if not token:
            raise UpstreamError(
                f"upstream {label!r} needs the caller's own token, and this request has no verified "
                f"caller; {subject} is unavailable",
                tool=tool,
            )
        if self._tasks is None:
            raise UpstreamError(f"upstream {label!r} is not started; {subject} is unavailable", tool=tool)
        entry = self._entry(self._tasks, token, ctx.auth.expires_at if ctx.auth is not None else None)
        entry.in_flight += 1
        try:
            await entry.opened.wait()
            if entry.session is None:
                self._drop(entry)
                raise self._refusal(entry, subject, tool) or UpstreamError(
                    f"upstream {label!r} could not open a session for this caller; {subject} is unavailable",
                    tool=tool,
                )
            try:
                yield entry.session
            except Exception:
                refused = self._refusal(entry, subject, tool)
                if refused is None:
                    raise
                self._drop(entry)
                raise refused from None  # says why, where the SDK has only "Server returned an error response"
        finally:
            entry.in_flight -= 1
            entry.last_used = anyio.current_time()
            if entry.retired and not entry.in_flight:
                entry.closing.set()

    def lose(self, session: ClientSession) -> None:
        """Drop the caller session `session` (its upstream session is gone)."""
        for entry in list(self._sessions.values()):
            if entry.session is session:
                self._drop(entry)

    def _refusal(self, entry: _CallerSession, subject: str, tool: str | None) -> UpstreamError | None:
        if entry.auth.refused is None:
            return None
        return UpstreamError(
            f"upstream {self.upstream.label!r} refused the caller's token (HTTP {entry.auth.refused}); "
            f"{subject} is unavailable",
            tool=tool,
        )

    def _key(self, token: str) -> str:
        return hmac.new(self._salt, token.encode(), hashlib.sha256).hexdigest()

    def _entry(self, tasks: TaskGroup, token: str, expires_at: int | None) -> _CallerSession:
        """The pooled session of `token`, or a new one (opening in `tasks`), the least recently
        used retired if the pool is full."""
        key = self._key(token)
        entry = self._sessions.get(key)
        if entry is not None:
            self._sessions.move_to_end(key)
            return entry
        entry = self._sessions[key] = _CallerSession(key, token, expires_at)
        self._held.add(entry)
        tasks.start_soon(self._hold, entry, name=f"toolweave caller session of {self.upstream.label!r}")
        while len(self._sessions) > self.max_sessions:
            self._drop(next(iter(self._sessions.values())))
        return entry

    def _drop(self, entry: _CallerSession) -> None:
        if self._sessions.get(entry.key) is entry:
            del self._sessions[entry.key]
        entry.retire()

    async def _hold(self, entry: _CallerSession) -> None:
        """Open the session and keep it until `entry.closing`; shielded from the server's stop,
        which closes it through `closing` (the upstream hears the session end), or `scope`."""
        label = self.upstream.label
        try:
            if entry.closing.is_set():  # retired before it opened, and nobody waits for it
                return
            with entry.scope:
                async with self.upstream.open_session(lambda: self._drop(entry), auth=entry.auth) as session:
                    self.opened += 1
                    entry.session = session
                    entry.opened.set()
                    logger.debug("[%s] opened a session for a caller (%d pooled)", label, len(self._sessions))
                    await entry.until_closing_or_expired()
                    self._drop(entry)  # expired: closed once its requests in flight have ended
                    await entry.closing.wait()
                    entry.session = None
        except Exception as error:
            failure = describe_failure(error)  # (task groups wrap failures: the innermost one)
            if entry.opened.is_set():  # ending a session that was up (its upstream went away)
                logger.debug("[%s] a caller session ended: %s", label, failure)
            elif entry.auth.refused is None:
                logger.warning("[%s] could not open a session for a caller: %s", label, failure)
        finally:
            entry.session = None
            entry.auth.release()
            entry.opened.set()
            entry.closed.set()
            self._held.discard(entry)
            self._drop(entry)
