"""How built-in middleware tells callers apart, and per-tool settings keyed by name globs.

A *caller key* partitions per-caller state (rate-limit buckets, cache entries, task ownership). By
default (`"caller"`) it is something the client cannot choose: the authenticated subject when
the transport verified one (for a token that names no subject, such as a client-credentials
token, its OAuth client; for one that names neither, a digest of the token), else the peer's
network address (HTTP), else `"local"` (stdio and in-process: the process is the one caller).
Each kind has its own prefix, so a client named like a user is not that user. The name a client
announces is never used unless asked for (`"client"`), since any client can announce any name.
Any middleware that takes `key=` accepts `"caller"`, `"subject"`, `"peer"`, `"client"`,
`"global"` (one shared key) or a function `(ctx) -> str`.

Example:
    >>> from toolweave.core.context import AuthInfo, ClientInfo, Context
    >>> caller_key(Context(auth=AuthInfo(subject="alice"), client=ClientInfo("cursor")))
    'subject:alice'
    >>> caller_key(Context(auth=AuthInfo(client_id="alice"), peer="203.0.113.7"))  # no subject: not user alice
    'oauth-client:alice'
    >>> caller_key(Context(client=ClientInfo("cursor"), peer="203.0.113.7"))
    'peer:203.0.113.7'
    >>> caller_key(Context(client=ClientInfo("cursor")))
    'local'
    >>> per_tool_value({"gh_*": 30, "*": 5}, "gh_search", None)
    30
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
from collections.abc import Callable, Mapping
from typing import TypeVar

from toolweave.core.context import Context

CallerKey = Callable[[Context], str]
"""A function naming the caller of a request."""

T = TypeVar("T")


def caller_key(ctx: Context) -> str:
    """The authenticated subject, else the OAuth client (or a digest) of a token without one,
    else the peer address, else `"local"` (prefixed by kind: a client named like a user is not
    that user)."""
    auth = ctx.auth
    if auth is not None:
        if auth.subject:
            return f"subject:{auth.subject}"
        if auth.client_id:
            return f"oauth-client:{auth.client_id}"
        if auth.token:  # a verified token that names nobody: each token its own caller
            return f"token:{hashlib.sha256(auth.token.encode()).hexdigest()[:32]}"
    if ctx.peer:
        return f"peer:{ctx.peer}"
    return "local"


def _peer(ctx: Context) -> str:
    return ctx.peer or "local"


def _subject(ctx: Context) -> str:
    return ctx.auth.subject if ctx.auth is not None and ctx.auth.subject else "anonymous"


def _client(ctx: Context) -> str:
    return ctx.client.name if ctx.client is not None and ctx.client.name else "anonymous"


def _global(ctx: Context) -> str:
    return "*"


_NAMED: dict[str, CallerKey] = {
    "caller": caller_key,
    "subject": _subject,
    "peer": _peer,
    "client": _client,
    "global": _global,
}


def resolve_key(key: str | CallerKey) -> CallerKey:
    """The key function for `key=`: one of the names above, or a function of the context."""
    if callable(key):
        return key
    try:
        return _NAMED[key]
    except KeyError:
        expected = f"one of {sorted(_NAMED)} or a function (ctx) -> str"
        raise ValueError(f"key must be {expected}, not {key!r}") from None


def per_tool_value(per_tool: Mapping[str, T], name: str, default: T) -> T:
    """The value of the first glob in `per_tool` matching `name` (insertion order), else `default`."""
    for pattern, value in per_tool.items():
        if fnmatch.fnmatchcase(name, pattern):
            return value
    return default


def positive(value: float | None, what: str, *, allow_none: bool = True, allow_zero: bool = False) -> None:
    """Raise a clear `ValueError` unless `value` is a positive number (or `None`/0 where allowed)."""
    if value is None:
        if allow_none:
            return
        raise ValueError(f"{what} is required")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number, not {value!r}")
    if value < 0 or (value == 0 and not allow_zero) or value != value:
        raise ValueError(f"{what} must be {'>= 0' if allow_zero else '> 0'}, not {value!r}")


def seconds(value: float) -> str:
    """`value` seconds for a message, rounded up to hundredths: `0.4`, `12.01`, `0.01`."""
    return f"{math.ceil(value * 100) / 100:g}"
