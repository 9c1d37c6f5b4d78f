"""`OpenAPIServer`: an HTTP API described by OpenAPI 3.x, one tool per operation.

Build one with `RemoteServer.openapi(spec, base_url=...)` (or `OpenAPIServer(...)`). The spec
is read once, when the server is built: every kept operation becomes a tool (see
`toolweave.openapi.operations`) that the server's transforms, middleware and mounts treat like
any other — rename it, hide and inject its `api_key`, trim its answers with `MapResult`.

Calls go through one pooled `httpx2.AsyncClient`, opened when the server starts (`async with`,
or serving) and closed when it stops (once the requests under way have their answers, waiting up
to `timeout`), with the server's `timeout` on every request; a client
of your own (`client=`: an `httpx2.AsyncClient`, or a classic `httpx.AsyncClient`) is used as it
is and never closed. A call while no client is open fails at once with `UpstreamError`.

Every call goes to the one address the server shows (`base_url`, in `explain` and its tools'
origin): `base_url=`, else the base URL of the client given, else the spec's `servers`. Each
request names it whole, so a client with no base URL of its own sends it as well; a client
whose base URL is another than `base_url=` is refused (which of the two was meant?).

Example:
    >>> api = OpenAPIServer({"openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
    ...     "paths": {"/pets": {"get": {"operationId": "list_pets", "summary": "List pets"}}}},
    ...     base_url="http://127.0.0.1:9")
    >>> [(tool.name, tool.description) for tool in api.catalog.tools]
    [('list_pets', 'List pets')]
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urljoin, urlsplit, urlunsplit

import anyio
import httpx2
from anyio.abc import TaskGroup

from toolweave.core.errors import SpecError, UpstreamError
from toolweave.core.in_flight import InFlight
from toolweave.core.shown import Secrets, shown_url, url_secrets
from toolweave.core.tool import Origin, Tool
from toolweave.openapi.call import HttpCall
from toolweave.openapi.credentials import Credentials, HeaderValue
from toolweave.openapi.operations import Operation, read_operations
from toolweave.openapi.routes import Routes
from toolweave.openapi.sending import HTTPX2_ERRORS, Errors, errors_of
from toolweave.openapi.spec import Spec, load_spec
from toolweave.server.server import Server

if TYPE_CHECKING:
    from toolweave.openapi.call import Client

DEFAULT_LIMITS = httpx2.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=30.0)


def _routes(value: Routes | Sequence[Routes] | None) -> tuple[Routes, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, Routes) else tuple(value)


class OpenAPIServer(Server):
    """An HTTP API as a server of tools, one per operation.

    Args:
        spec: The OpenAPI 3.x document: a file path, an `http(s)://` URL or a dict.
        base_url: Where the API answers; by default the base URL of `client`, else the spec's
            first `servers` URL (relative ones taken against the spec's URL; none, with a spec
            read from a URL: that URL's host). Its query parameters (`?key=...`) are sent with
            every call, and a query parameter of the same name is not an argument of the tools;
            a fragment is refused.
        client: An `httpx2.AsyncClient` of your own (its timeouts, transport, auth, and its base
            URL when `base_url` is not given), or a classic `httpx.AsyncClient`; it is used as is
            (but a redirect is never followed: the `headers` would go along) and never closed. By
            default the server opens one pooled `httpx2.AsyncClient`.
        headers: Upstream credentials and other headers for every request: constants,
            `Secret`s or sources (`FromEnv`, ...), see `toolweave.openapi.credentials`. The
            caller's own token is never sent unless a header says so (`FromHeader`).
        auth: An `httpx2.Auth` for every request (e.g. `toolweave.auth.Bearer(...)`, an
            `OAuthClientCredentials` flow); with an `httpx.AsyncClient`, give that client its own
            `httpx` auth instead.
        timeout: The most seconds one request may take, its answer read in all (and each step:
            connect, read, write, pool).
        include: Keep only the operations these `Routes` match (all by default).
        exclude: Leave out the operations these `Routes` match.
        error_excerpt: How many characters of a non-2xx answer's body its error result quotes.
        max_response_bytes: The largest answer read (10 MiB); a larger one fails the call.
        name: The server name (logs, errors); by default the spec's title.
        secrets: Values in `base_url` never to show in logs or `explain` (a tenant or key the
            config expanded into it), as `RemoteServer` takes them.
        **options: `Server` options.

    Raises:
        SpecError: the spec cannot be read or an operation in it is malformed, or there is no
            base URL (none given, none in the spec, and none of the client's).
        ValueError: `base_url` is no `http(s)://` URL, holds a fragment, or is another address
            than the base URL of `client`.
        TypeError: `client` is not an `httpx2` or `httpx` `AsyncClient`, `auth` is a string, or
            an `httpx2` auth is given with an `httpx.AsyncClient` (which cannot run it).
    """

    is_remote = True

    def __init__(
        self,
        spec: str | os.PathLike[str] | Mapping[str, Any],
        *,
        base_url: str | None = None,
        client: Client | None = None,
        headers: Mapping[str, HeaderValue] | None = None,
        auth: httpx2.Auth | None = None,
        timeout: float = 30.0,
        include: Routes | Sequence[Routes] | None = None,
        exclude: Routes | Sequence[Routes] | None = None,
        error_excerpt: int = 500,
        max_response_bytes: int = 10 * 2**20,
        name: str | None = None,
        secrets: Secrets = (),
        **options: Any,
    ) -> None:
        errors = client_errors(client, auth)
        loaded = load_spec(spec)
        title = str((loaded.document.get("info") or {}).get("title") or "openapi")
        super().__init__(name or title, **options)
        self.spec = loaded
        self.base_url = _base_url(base_url, str(client.base_url) if client is not None else "", loaded, spec)
        # each call names the address whole and sends the query first (a client's base URL never applies)
        self._address, self._query = split_query(self.base_url)
        self.secrets = secrets
        self._carried = self._secrets_carried()
        self.timeout = timeout
        self.auth = auth
        self.credentials = Credentials(headers)
        self._own_client = client
        self._client: Client | None = client
        self._errors = errors
        self._named = name is not None
        self.in_flight = InFlight()
        self._calls: list[HttpCall] = []
        self.operations = read_operations(
            loaded,
            _routes(include),
            _routes(exclude),
            self.credentials.describe(),
            supplied_query=[name for name, _ in self._query],
            supplied_cookies=self.credentials.cookie_names(),
            api=f"API {self.name!r}",
        )
        self.tools.set_upstream(
            self._tool(operation, error_excerpt, max_response_bytes) for operation in self.operations
        )

    @cached_property
    def shown_base_url(self) -> str:
        """Where the API answers, as logs and `explain` show it (without secrets; worked out once,
        the first of the operations' tools reading it)."""
        return shown_url(self.base_url, self.secrets)

    def __repr__(self) -> str:
        return f"OpenAPIServer({self.name!r}, {self.shown_base_url!r})"

    def _tool(self, operation: Operation, excerpt: int, max_bytes: int) -> Tool:
        call = HttpCall(
            operation,
            self.client,
            self.credentials if self.credentials else None,
            excerpt=excerpt,
            max_bytes=max_bytes,
            auth=self.auth,
            errors=self._errors,
            api=f"API {self.name!r}",
            in_flight=self.in_flight,
            timeout=self.timeout if self._own_client is None else None,
            secrets=self._carried,
            address=self._address,
            query=self._query,
        )
        self._calls.append(call)
        return Tool(
            name=operation.name,
            description=operation.description,
            input_schema=operation.input_schema,
            output_schema=operation.output_schema,
            output_checked=True,  # (by the call: a mismatch is the API's fault, said as such)
            annotations=operation.annotations,
            tags=frozenset(operation.tags),
            run=call,
            origin=Origin("openapi", f"{operation.label} of {self.shown_base_url}", operation.name),
        )

    def client(self) -> Client:
        """The client calls go through; `UpstreamError` while the server is not started."""
        client = self._client
        if client is None:
            raise UpstreamError(f"API {self.name!r} is not started: use `async with server:` or serve it")
        return client

    def named_by_mount(self, prefix: str) -> None:
        """Take the mount prefix as this API's name (in logs and errors), unless one was given."""
        if not self._named:
            self.name = prefix
            for call in self._calls:
                call.api = f"API {prefix!r}"

    def _secrets_carried(self) -> tuple[str, ...]:
        """The secret values the base URL puts in every request (a password, an `api_key=`, a
        config's `${...}`), to scrub from the answers."""
        url = self.base_url
        return tuple(dict.fromkeys([*url_secrets(url), *(value for value in self.secrets if value and value in url)]))

    async def hold_open(self, tasks: TaskGroup) -> None:
        """Open the pooled client for the lifespan (unless a client was given)."""
        if self._own_client is not None:
            return
        client = httpx2.AsyncClient(timeout=httpx2.Timeout(self.timeout), limits=DEFAULT_LIMITS)
        self._client = client
        tasks.start_soon(self._close_at_exit, client, name=f"toolweave HTTP client of {self.name!r}")

    async def _close_at_exit(self, client: httpx2.AsyncClient) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(self.timeout):  # requests under way (a reloaded build's) end first
                    await self.in_flight.settled()
                self._client = None
                await client.aclose()


def client_errors(client: object, auth: object) -> Errors:
    """The timeout and transport errors of `client`'s HTTP library, checked when the server is
    built: `httpx2`'s (no client: the server's own), or `httpx`'s for a classic `httpx.AsyncClient`
    (which runs only its own `httpx` auth, not `auth=`).

    Raises:
        TypeError: any other client or auth, with what is expected.
    """
    if isinstance(auth, str | bytes):
        raise TypeError(
            "OpenAPIServer auth= takes an httpx2 auth, not a string: send a bearer token with "
            "auth=toolweave.auth.Bearer(token) (or Bearer(FromEnv('NAME')))"
        )
    if client is None or isinstance(client, httpx2.AsyncClient):
        return HTTPX2_ERRORS
    httpx = sys.modules.get("httpx")  # a client of that library means it is imported already
    if httpx is not None and isinstance(client, httpx.AsyncClient):
        if auth is not None:
            raise TypeError(
                "OpenAPIServer auth= signs requests through an httpx2.AsyncClient; the httpx.AsyncClient "
                "given as client= cannot run it: give that client its own httpx auth (or headers=), "
                "or pass an httpx2.AsyncClient"
            )
        return errors_of(httpx)
    raise TypeError(
        f"OpenAPIServer client= takes an httpx2.AsyncClient (or an httpx.AsyncClient), not {type(client).__name__}"
    )


def _base_url(given: str | None, client_url: str, spec: Spec, source: object) -> str:
    """Where the API answers: `given`, else the base URL of the client given (`client_url`, `""`
    for none), else the spec's first server URL (a relative one taken against the spec's own
    URL, as OpenAPI 3 says; a spec that lists no servers has the one server `/`, so a spec read
    from a URL without them, as every FastAPI app serves its own, is answered by the host it
    came from).

    Raises:
        ValueError: `given` is not an `http(s)://` URL, or another address than `client_url`.
        SpecError: no `given` and no `client_url`, and the spec lists no server or a relative one,
            with no URL of the spec's own to take it against, or one that is not `http(s)`.

    Example:
        >>> spec = load_spec({"openapi": "3.1.0", "paths": {}, "servers": [{"url": "/v1"}]})
        >>> _base_url(None, "", spec, "https://api.example/specs/openapi.json")
        'https://api.example/v1'
        >>> _base_url(None, "https://own.example/", spec, "https://api.example/specs/openapi.json")
        'https://own.example/'
        >>> _base_url(None, "", spec, spec.document)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        toolweave.core.errors.SpecError: the spec dict: no base_url given, and servers[0].url '/v1' is relative: ...
    """
    if given:
        return _checked_base_url(given, client_url)
    if client_url:
        return client_url
    url = _server_url(spec.document, spec.where)
    is_url = isinstance(source, str) and source.startswith(("http://", "https://"))
    if url is None and is_url:
        url = "/"
    if url is not None and not urlsplit(url).scheme and is_url:
        url = urljoin(str(source), url)
    if url is not None and "#" in url:
        shown = shown_url(url.partition("#")[0]) + "#…"
        raise SpecError(f"{spec.where}: servers[0].url {shown!r} holds a fragment ('#...'), which no request sends")
    if url is not None and url.startswith(("http://", "https://")):
        return url
    if url is None:
        raise SpecError(
            f"{spec.where}: no base_url given, and the spec lists no 'servers' and was not read from a URL "
            "(give base_url, the API's http(s):// address)"
        )
    if urlsplit(url).scheme:
        raise SpecError(
            f"{spec.where}: no base_url given, and servers[0].url {shown_url(url)!r} is not an http(s) URL "
            "(give base_url, the API's http(s):// address)"
        )
    raise SpecError(
        f"{spec.where}: no base_url given, and servers[0].url {shown_url(url)!r} is relative: it is taken against "
        "the spec's URL, and this spec was not read from one (give base_url, the API's http(s):// address)"
    )


def _checked_base_url(given: str, client_url: str) -> str:
    """`given`, checked: an `http(s)://` URL with no fragment, and the same address as the base
    URL of the client given, `client_url`, when it has one (of two, which one is meant is not known).

    Example:
        >>> _checked_base_url("http://api.example/v1", "http://API.example/v1/")
        'http://api.example/v1'
        >>> _checked_base_url("http://api.example/v1", "http://api.example/v2/")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: base_url 'http://api.example/v1' is another address than the base URL of the client given, ...
    """
    if not given.startswith(("http://", "https://")):
        raise ValueError(f"base_url must start with http:// or https://, not {shown_url(given)!r}")
    if "#" in given:
        raise ValueError(
            f"base_url cannot hold a fragment ('#...'), which no request sends: "
            f"{shown_url(given.partition('#')[0]) + '#…'!r} "
            "(an API key goes in its query, ?key=..., or in headers)"
        )
    if client_url and _normalized(given) != _normalized(client_url):
        raise ValueError(
            f"base_url {shown_url(given)!r} is another address than the base URL of the client given, "
            f"{shown_url(client_url)!r}: give one of them (or the same in both)"
        )
    return given


def _normalized(url: str) -> tuple[str, list[tuple[str, str]]]:
    """A base URL as an address compares: its scheme and host in lowercase, its path without a
    trailing `/` (httpx adds one to a client's), and its query parameters."""
    address, query = split_query(url)
    return str(httpx2.URL(address)).rstrip("/"), query


def split_query(base_url: str) -> tuple[str, list[tuple[str, str]]]:
    """`base_url` without its query, and the query's parameters (decoded), which every call sends:
    httpx would take the operation's path for more of the query (`/v1?key=k/things/42`).

    Example:
        >>> split_query("https://api.example/v1?key=a%2Bb&flag")
        ('https://api.example/v1', [('key', 'a+b'), ('flag', '')])
    """
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(query="")), parse_qsl(parts.query, keep_blank_values=True)


def _server_url(document: Mapping[str, Any], where: str) -> str | None:
    """The first `servers` URL with its variables' defaults filled in (None when there is none).

    Raises:
        SpecError: `servers` is not a list of server objects, each with a string `url` and the
            variables its `{name}`s need, each with a `default`.
    """
    servers = document.get("servers")
    if not servers:
        return None
    if not isinstance(servers, list):
        raise SpecError(f"{where}: 'servers' is a list of servers (each with a 'url'), not {type(servers).__name__}")
    first = servers[0]
    if not isinstance(first, Mapping):
        raise SpecError(f"{where}: servers[0] is a mapping with a 'url', not {type(first).__name__}")
    url = first.get("url")
    variables = first.get("variables") or {}
    if not isinstance(url, str) or not url or not isinstance(variables, Mapping):
        raise SpecError(f"{where}: servers[0] needs a string 'url' and a mapping of 'variables'")
    for name, variable in variables.items():
        if not isinstance(variable, Mapping):
            raise SpecError(f"{where}: servers[0].variables.{name} is not a mapping (with a 'default')")
        if "default" not in variable:
            raise SpecError(f"{where}: servers[0].variables.{name} needs a 'default'")
        url = url.replace("{" + str(name) + "}", str(variable["default"]))
    left = re.search(r"\{([^{}]*)\}", url)
    if left:
        raise SpecError(f"{where}: servers[0].url has {left.group()}, which servers[0].variables does not define")
    return url
