"""`RemoteServer`: an MCP server reached over stdio, HTTP or legacy HTTP+SSE, mountable like a
local server.

A remote server is a `Server` whose tools, prompts, resources and resource templates are those
its upstream lists. While the server that holds it runs (`async with gateway:`, or serving it),
one persistent MCP session per upstream is kept open (see `toolweave.mcp.upstream`): each list is
fetched once (prompts and resources only when the upstream advertises them), cached, and fetched
again when the upstream sends that list's `list_changed`; every call, `prompts/get` and
`resources/read` reuses the session. Mounted, prompt names get the prefix and resource URIs
(templates stay templates) get it as their first path segment; reads reach the upstream with the
upstream's own URI.

- Before the first connection the remote has no tools (the sync `catalog` compiles without
  them); serving or `async with` waits for the first connection (up to `connect_timeout`), so
  clients see the upstream's tools from their first request.
- Used in-process without a lifespan (`await root.list_tools()`, `call_tool`, `get_prompt`,
  `read_resource`, ...), the server connects its remotes for that use and closes them after
  it (logged at INFO); `async with root:` keeps the sessions open across uses. A tool, prompt or
  resource missing because its remote is down is `UnknownTool` (`UnknownPrompt`,
  `UnknownResource`) naming the remote and why it is down; listing leaves it out and logs a
  WARNING naming it.
- When the upstream dies, calls in flight fail with `UpstreamError`, the lists keep the last
  known tools, prompts and resources, and the upstream is restarted with exponential backoff.
- A call, prompt or read while the session is down fails at once with `UpstreamError`.
- `RemoteServer.http(url, forward_caller_token=True)` sends each verified caller's own token to
  the upstream: its calls, prompts and reads go over a session of its own (see
  `toolweave.mcp.upstream_callers`); the lists still come over the gateway's session.

Example:
    >>> gateway = Server("gateway")
    >>> github = RemoteServer.stdio("github-mcp-server", ["stdio"], env={"GITHUB_TOKEN": "..."})
    >>> mounted = gateway.mount(github, prefix="gh")
    >>> github  # the token stays out of what is shown
    RemoteServer('gh', 'github-mcp-server stdio')
    >>> github.state  # nothing runs until the gateway does
    'not started'

    Running the gateway starts github-mcp-server, so the example does not run it:

    >>> async with gateway:  # starts github-mcp-server  # doctest: +SKIP
    ...     await gateway.call_tool("gh_search_issues", {"query": "anyio"})
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource
from toolweave.core.shown import Secrets, credentials_in, shown_command, shown_url, url_secrets
from toolweave.core.tool import Tool
from toolweave.server.completion import Completion, CompletionRequest
from toolweave.server.server import Server

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from toolweave.mcp.upstream import Upstream
    from toolweave.openapi.server import OpenAPIServer


@dataclass(frozen=True, slots=True)
class StdioTarget:
    """A server started as a subprocess and spoken to over its stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = field(default=None, repr=False)
    cwd: str | None = None
    secrets: Secrets = field(default=(), repr=False)
    """Values to keep out of `describe()` (those a config expanded from the environment)."""

    def describe(self) -> str:
        """The command line, for logs and `explain` (never the environment, never a secret)."""
        return shown_command(self.command, self.args, self.secrets)

    def credentials(self) -> list[str]:
        """The credentials it is started with (`core.shown.credentials_in`): never to come back."""
        return credentials_in(self.env, self.secrets)

    def default_name(self) -> str:
        """A server name from the command (`npx` and interpreters use their first argument)."""
        words = [self.command, *self.args]
        for word in words:
            base = os.path.basename(word).removesuffix(".py")
            if base and not base.startswith("-") and base not in ("python", "python3", "npx", "uvx", "node"):
                return base
        return os.path.basename(self.command) or "remote"


@dataclass(frozen=True, slots=True)
class HttpTarget:
    """A server reached over streamable HTTP."""

    url: str
    headers: Mapping[str, str] | None = field(default=None, repr=False)
    secrets: Secrets = field(default=(), repr=False)
    """Values to keep out of `describe()` (those a config expanded from the environment)."""
    auth: Any = field(default=None, repr=False)
    """The credentials presented to the upstream (an `httpx` auth: `toolweave.auth.Bearer`, ...)."""

    def describe(self) -> str:
        """The URL, for logs and `explain` (never the headers, a password or a secret)."""
        return shown_url(self.url, self.secrets)

    def credentials(self) -> list[str]:
        """The credentials its requests carry in their headers and URL (`auth`'s are held where
        they are sent: `toolweave.auth.upstream`): never to come back."""
        return [*credentials_in(self.headers, self.secrets), *url_secrets(self.url)]

    def default_name(self) -> str:
        """The host name of the URL (never its user, password, port or query: the name is a log
        prefix, a span attribute and a metrics label)."""
        try:
            host = urlsplit(self.url).hostname
        except ValueError:  # e.g. an unclosed IPv6 bracket
            host = None
        return host or "remote"


@dataclass(frozen=True, slots=True)
class SseTarget(HttpTarget):
    """A server reached over the legacy HTTP+SSE transport (2024-11-05): a `GET` event stream at
    `url`, messages posted to the endpoint it announces."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """How restarts of a failed upstream are spaced: `initial`, then times `factor`, up to `maximum`.

    The delay starts over once a connection has stayed up for `reset_after` seconds.
    """

    initial: float = 0.1
    maximum: float = 10.0
    factor: float = 2.0
    reset_after: float = 10.0

    def delays(self) -> Iterable[float]:
        """The successive delays."""
        delay = self.initial
        while True:
            yield delay
            delay = min(delay * self.factor, self.maximum)


def _check_forwarding(target: Any, forward: bool, sessions: int, idle: float) -> None:
    if forward and isinstance(target, StdioTarget):
        raise ValueError(
            f"forward_caller_token needs an HTTP upstream; {target.describe()!r} is a stdio process, "
            "which never receives a caller's token (give it its own credentials with env=)"
        )
    if not isinstance(sessions, int) or isinstance(sessions, bool) or sessions < 1:
        raise ValueError(f"caller_sessions must be a whole number of at least 1, not {sessions!r}")
    if not idle > 0:
        raise ValueError(f"caller_session_idle must be a positive number of seconds, not {idle!r}")


def _checked(url: str) -> str:
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"remote server URL must start with http:// or https://, not {shown_url(url)!r}")
    return url


def _checked_auth(auth: Any) -> Any:
    """`auth` if `httpx` can use it; a string (a token meant as `Bearer(token)`) is refused here,
    without its value, rather than at every connection attempt with it in the log."""
    if isinstance(auth, str | bytes):
        raise TypeError(
            "RemoteServer auth= takes an httpx auth, not a string: send a bearer token with "
            "auth=toolweave.auth.Bearer(token) (or Bearer(FromEnv('NAME')))"
        )
    return auth


DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds starting a `RemoteServer` waits for its upstream's handshake and first lists, by default."""


class RemoteServer(Server):
    """A remote MCP server whose tools can be mounted, transformed and wrapped like local ones.

    Build one with `RemoteServer.stdio(...)`, `RemoteServer.http(...)` or `RemoteServer.sse(...)`.

    Args:
        target: Where the upstream is (`StdioTarget`, `HttpTarget` or `SseTarget`).
        name: The name used in logs and errors; by default the mount prefix, else derived from
            the command or URL.
        connect_timeout: How long starting the server waits for the first connection.
        timeout: The most seconds one request to the upstream may take (a call, a prompt, a
            read), so a hung upstream can never hold a caller forever; `None` for no limit. A
            tighter deadline of the caller (`Timeout` middleware) wins.
        backoff: How restarts are spaced.
        required: The server is not ready without this upstream: `/readyz` answers 503 while it
            is not connected.
        forward_caller_token: Send each verified caller's own bearer token to this HTTP upstream,
            over one upstream session per caller (see `toolweave.mcp.upstream_callers`); the
            catalog is still listed over the gateway's own session (`auth=` of the target).
        caller_sessions: The most caller sessions kept open at once (the least recently used
            one is closed to open another).
        caller_session_idle: Seconds after which an unused caller session is closed.
        **options: `Server` options (e.g. `mask_error_details`, `middleware`).
    """

    is_remote = True

    def __init__(
        self,
        target: StdioTarget | HttpTarget | SseTarget,
        *,
        name: str | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        timeout: float | None = 60.0,
        backoff: Backoff | None = None,
        required: bool = False,
        forward_caller_token: bool = False,
        caller_sessions: int = 64,
        caller_session_idle: float = 300.0,
        **options: Any,
    ) -> None:
        _check_forwarding(target, forward_caller_token, caller_sessions, caller_session_idle)
        super().__init__(name or target.default_name(), **options)
        self.target = target
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self.backoff = backoff or Backoff()
        self.required = required
        self.forward_caller_token = forward_caller_token
        self.caller_sessions = caller_sessions
        self.caller_session_idle = caller_session_idle
        self._named = name is not None
        self._upstream: Upstream | None = None

    def __repr__(self) -> str:
        return f"RemoteServer({self.name!r}, {self.target.describe()!r})"

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        *,
        secrets: Secrets = (),
        **options: Any,
    ) -> RemoteServer:
        """An upstream started as `command args...` and spoken to over stdio.

        Args:
            env: Environment variables for the process, over a minimal safe default
                (`PATH`, `HOME`, ...), as the `mcp` SDK does.
            cwd: The working directory of the process.
            secrets: Values in `args` never to show in logs or `explain` (a token argument).
        """
        if isinstance(args, str):
            raise TypeError("args must be a list of strings, not one string")
        target = StdioTarget(
            command,
            tuple(args),
            dict(env) if env is not None else None,
            os.fspath(cwd) if cwd else None,
            secrets,
        )
        return cls(target, **options)

    @classmethod
    def http(
        cls,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        auth: Any = None,
        secrets: Secrets = (),
        **options: Any,
    ) -> RemoteServer:
        """An upstream reached over streamable HTTP at `url`, sending `headers` with every request.

        Args:
            auth: The gateway's own credentials for the upstream, e.g.
                `toolweave.auth.Bearer(FromEnv("GH_TOKEN"))` or `OAuthClientCredentials(...)`
                (any `httpx` auth). A caller's token is never passed on, unless
                `forward_caller_token=True` (then `auth=` serves only to list the catalog).
            secrets: Values in `url` never to show in logs or `explain` (a URL's password and
                secret-looking query parameters are hidden anyway).
        """
        target = HttpTarget(_checked(url), dict(headers) if headers else None, secrets, _checked_auth(auth))
        return cls(target, **options)

    @classmethod
    def sse(
        cls,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        auth: Any = None,
        secrets: Secrets = (),
        **options: Any,
    ) -> RemoteServer:
        """An upstream that speaks only the legacy HTTP+SSE transport, its event stream at `url`
        (often `.../sse`); otherwise like `http()`: one pooled session, restarted with backoff.
        """
        target = SseTarget(_checked(url), dict(headers) if headers else None, secrets, _checked_auth(auth))
        return cls(target, **options)

    @classmethod
    def openapi(cls, spec: Any, base_url: str | None = None, **options: Any) -> OpenAPIServer:
        """An HTTP API described by an OpenAPI 3.x `spec` (a file, a URL or a dict), one tool per
        operation, called at `base_url` through one pooled client (see `toolweave.openapi`).

        Example:
            >>> import anyio
            >>> from toolweave.transforms import FromEnv
            >>> ok = {"200": {"description": "the pets"}}
            >>> spec = {"openapi": "3.0.3", "info": {"title": "Pets", "version": "1"},  # or "petstore.yaml"
            ...         "paths": {"/pets": {"get": {"operationId": "list_pets", "responses": ok}}}}
            >>> api = RemoteServer.openapi(spec, base_url="https://petstore.example",
            ...                            headers={"x-api-key": FromEnv("PETSTORE_KEY")})
            >>> [tool.name for tool in anyio.run(api.list_tools)]  # no request until a call
            ['list_pets']
        """
        from toolweave.openapi.server import OpenAPIServer  # httpx is imported only when used

        return OpenAPIServer(spec, base_url=base_url, **options)

    # -- state ---------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether a session to the upstream is open right now."""
        return self._upstream is not None and self._upstream.session is not None

    @property
    def last_error(self) -> str | None:
        """Why the upstream is down (its last failure), or None."""
        return self._upstream.last_error if self._upstream is not None else None

    @property
    def state(self) -> str:
        """`"up"`, `"down"` (it failed; `last_error` says why) or `"not started"`."""
        if self._upstream is None:
            return "not started"
        return "up" if self.connected else "down"

    @property
    def era(self) -> str | None:
        """The protocol era negotiated with the upstream: `"2025"` (the `initialize` handshake),
        `"2026"` (`server/discover`: for an upstream that refuses the handshake, or lists tools
        with task support), or None before (see `toolweave.mcp.upstream_era`)."""
        return self._upstream.era if self._upstream is not None else None

    @property
    def caller_session_count(self) -> int:
        """How many per-caller sessions are open now (always 0 without `forward_caller_token`)."""
        callers = self._upstream.callers if self._upstream is not None else None
        return len(callers) if callers is not None else 0

    async def wait_connected(self) -> None:
        """Wait until a session to the upstream is open (e.g. after a restart)."""
        if self._upstream is None:
            raise RuntimeError(f"remote server {self.name!r} is not started: use `async with server:`")
        await self._upstream.wait_connected()

    def same_upstream(self, other: object) -> bool:
        """Whether `other` is a remote server to the same upstream, with the same options (so
        one may stand for the other, e.g. across a reload)."""
        if type(other) is not type(self):
            return False
        assert isinstance(other, RemoteServer)
        return self._options() == other._options()

    def _options(self) -> tuple[Any, ...]:
        forwarding = (self.forward_caller_token, self.caller_sessions, self.caller_session_idle)
        return (self.name, self.target, self.connect_timeout, self.timeout, self.backoff, *forwarding)

    async def settled(self) -> None:
        """Wait until no request is waiting for the upstream's answer."""
        if self._upstream is not None:
            await self._upstream.in_flight.settled()

    async def complete(self, request: CompletionRequest) -> Completion:
        """The upstream's suggestions for one of its prompts or templates (its own completer, if
        this remote has one, first)."""
        if self.completer is not None or self._upstream is None:
            return await super().complete(request)
        return await self._upstream.components.complete(request)

    async def subscribe_resource(self, uri: str) -> None:
        """Subscribe at the upstream to changes of `uri` (counted: the first subscriber subscribes)."""
        if self._upstream is not None:
            await self._upstream.components.subscribe(uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        """Counterpart of `subscribe_resource` (the last subscriber unsubscribes at the upstream)."""
        if self._upstream is not None:
            await self._upstream.components.unsubscribe(uri)

    def named_by_mount(self, prefix: str) -> None:
        """Take the mount prefix as this remote's name (in logs and errors), unless one was given."""
        if not self._named:
            self.name = prefix

    # -- hooks used by Server and the upstream session -----------------------------------------

    async def hold_open(self, tasks: TaskGroup) -> None:
        """Connect to the upstream and keep the session up (restarting it) in `tasks`."""
        from toolweave.mcp.upstream import Upstream

        if self._upstream is None:
            self._upstream = Upstream(self)
        await self._upstream.start(tasks)

    def set_remote_tools(self, tools: Iterable[Tool]) -> None:
        """Replace the upstream's tools (called by the session when the upstream's list changes)."""
        self.tools.set_upstream(tools)

    @property
    def remote_tools(self) -> dict[str, Tool]:
        """The tools the upstream listed last, by name."""
        return self.tools.upstream

    def set_remote_prompts(self, prompts: Iterable[Prompt]) -> None:
        """Replace the upstream's prompts (called by the session when the upstream's list changes)."""
        self.prompts.set_upstream(prompts)

    @property
    def remote_prompts(self) -> dict[str, Prompt]:
        """The prompts the upstream listed last, by name."""
        return self.prompts.upstream

    def set_remote_resources(self, resources: Iterable[Resource]) -> None:
        """Replace the upstream's resources and templates (called by the session on a change)."""
        self.resources.set_upstream(resources)

    @property
    def remote_resources(self) -> dict[str, Resource]:
        """The resources and resource templates the upstream listed last, by URI."""
        return self.resources.upstream
