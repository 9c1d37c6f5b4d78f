"""Sending an operation's request through the API's pooled client, and what a failure is called.

A kept-alive connection the API has closed (its own keep-alive timeout, or a crash answered
with a 500 before it closed) is found closed only once a request is written to it: the request
fails before any answer arrives. `send` then sends it once more, on a new connection, when it
is idempotent (`GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE`: sending it twice does what sending it
once does); a `POST` or `PATCH` is never sent twice, since the API may have acted on the first.
`what_failed` says what went wrong in words (`the connection closed before an answer`) and the
library's class name, never its message, which may quote the URL and its query.

Example:
    >>> what_failed(httpx2.ReadError("[Errno 104] Connection reset by peer"), answered=False)
    'the connection closed before an answer (ReadError)'
"""

from __future__ import annotations

import ssl
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import httpx2

from toolweave.openapi.routes import IDEMPOTENT

if TYPE_CHECKING:
    from toolweave.openapi.call import Client, Request, Response


class Errors(NamedTuple):
    """The error classes of the client's HTTP library (`httpx2`, or a classic `httpx`)."""

    timeout: type[Exception]
    http: type[Exception]
    """Every other error of a request (the library's `HTTPError`)."""
    stale: tuple[type[Exception], ...]
    """How a request fails on a connection the API closed before it answered: the write fails
    (`WriteError`: the peer is gone, and the request never arrived whole), the read fails
    (`ReadError`: the peer reset the connection the request reached after it closed), or the
    connection ends with no answer (`RemoteProtocolError`; also what came not being HTTP, which
    an idempotent request may well be asked again for). Not `ConnectError`, which no kept-alive
    connection raises (a new one could not be opened: a second try would fail alike), nor a
    timeout (the API may be working on it still)."""


def errors_of(library: ModuleType) -> Errors:
    """The `Errors` of `httpx2` or `httpx` (the two name their classes alike)."""
    stale = (library.WriteError, library.ReadError, library.RemoteProtocolError)
    return Errors(library.TimeoutException, library.HTTPError, stale)


HTTPX2_ERRORS = errors_of(httpx2)


class _Connects:
    """A `trace` extension of httpcore: whether sending a request opened a new connection."""

    __slots__ = ("opened",)

    def __init__(self) -> None:
        self.opened = False

    async def __call__(self, event: str, info: Any) -> None:
        if event.startswith("connection.connect_"):  # connect_tcp / connect_unix_socket
            self.opened = True


async def send(client: Client, request: Request, errors: Errors, **options: Any) -> Response:
    """`client.send(request, **options)`; once more when the request is idempotent and failed on a
    kept-alive connection before any answer (`errors.stale`, no new connection opened for it)."""
    again = request.method.lower() in IDEMPOTENT
    while True:
        connects = _Connects()
        request.extensions["trace"] = connects
        try:
            return await client.send(request, **options)  # type: ignore[arg-type]
        except errors.stale:
            if not again or connects.opened:
                raise
            again = False


_BEFORE_ANSWER = {
    "ConnectError": "the connection could not be opened",
    "WriteError": "the connection closed while the request was sent",
    "ReadError": "the connection closed before an answer",
    "RemoteProtocolError": "the connection closed before an answer, or what came was not HTTP",
    "LocalProtocolError": "the request could not be written as HTTP",
    "ProxyError": "the proxy refused the connection",
    "UnsupportedProtocol": "the URL is not an http(s) URL",
    "TooManyRedirects": "it was redirected too many times",
    "NetworkError": "the connection failed",
}
_WHILE_READING = {
    "ReadError": "the connection closed before the whole answer arrived",
    "RemoteProtocolError": "the connection closed before the whole answer arrived, or it was not HTTP",
    "DecodingError": "the answer's content encoding could not be decoded",
    "NetworkError": "the connection failed while the answer arrived",
}


def what_failed(error: Exception, *, answered: bool) -> str:
    """What `error` (a request's, of `httpx2` or `httpx`) means, in words, with its class name;
    `answered`: it came after the answer's status and headers, while its body was read. A TLS
    failure says so, with OpenSSL's reason (a connection that "could not be opened" sent users
    looking for a firewall when the API's certificate was self-signed).

    Example:
        >>> refused = ssl.SSLCertVerificationError(1, "certificate verify failed")
        >>> refused.verify_message = "self-signed certificate"
        >>> error = httpx2.ConnectError("...")
        >>> error.__cause__ = refused
        >>> what_failed(error, answered=False)
        "the API's TLS certificate was not accepted: self-signed certificate (ConnectError)"
    """
    words = _WHILE_READING if answered else _BEFORE_ANSWER
    said = _tls_failure(error) or next(
        (words[kind.__name__] for kind in type(error).__mro__ if kind.__name__ in words), None
    )
    return f"{said or 'the request failed'} ({type(error).__name__})"


def _tls_failure(error: BaseException) -> str | None:
    """The TLS failure under `error` (the `ssl` error that httpcore's and httpx's wrap), in words."""
    cause: BaseException | None = error
    for _ in range(8):  # (a chain, not a loop: bounded all the same)
        if cause is None:
            return None
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"the API's TLS certificate was not accepted: {cause.verify_message or cause.reason}"
        if isinstance(cause, ssl.SSLError):
            return f"the TLS handshake failed: {cause.reason or type(cause).__name__}"
        cause = cause.__cause__ or cause.__context__
    return None
