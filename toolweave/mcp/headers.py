"""`RequestHeaders`: an HTTP request's headers as `ctx.headers`, refusing to read a repeated one.

A header sent more than once is ambiguous: proxies and servers disagree on whether the first or
the last value counts, so a client could pass one value through a proxy's check and have the
server act on the other. Neither value is trusted: reading a repeated header (an
`InjectArgs(tenant=FromHeader("x-tenant"))`, a `FromContext("headers.x-tenant")`, a function
reading `ctx.headers`) refuses the call with `Rejected`, which names the header, and the
operator's log says so. Requests that do not read it are served as usual. (A repeated
`Authorization` header is refused with 401 before anything runs, when the server authenticates
callers: `toolweave.mcp.http_auth`.)

Example:
    >>> headers = RequestHeaders([("X-Tenant", "acme"), ("Accept", "a"), ("accept", "b")])
    >>> headers["x-tenant"], list(headers)
    ('acme', ['x-tenant'])
    >>> headers.get("accept")
    Traceback (most recent call last):
    toolweave.core.errors.Rejected: The HTTP header 'accept' was sent more than once; send it once
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping

from toolweave.core.errors import Rejected

security = logging.getLogger("toolweave.security")


class RequestHeaders(Mapping[str, str]):
    """Headers by lower-case name; reading one the request repeated raises `Rejected`.

    Iterating and `len` cover the unambiguous headers only, so looking through them never trips
    over a repeated one that nobody asked for.
    """

    __slots__ = ("_repeated", "_values")

    def __init__(self, items: Iterable[tuple[str, str]]) -> None:
        values: dict[str, str] = {}
        repeated: set[str] = set()
        for key, value in items:
            name = key.lower()
            if name in values:
                repeated.add(name)
            values[name] = value
        for name in repeated:
            del values[name]
        self._values = values
        self._repeated = frozenset(repeated)

    def __getitem__(self, name: str) -> str:
        if name in self._repeated:
            security.warning("refused a request that read the HTTP header %r, which it sent more than once", name)
            raise Rejected(f"The HTTP header {name!r} was sent more than once; send it once")
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:  # values may be credentials: names only
        return f"RequestHeaders({sorted(self._values)}, repeated={sorted(self._repeated)})"
