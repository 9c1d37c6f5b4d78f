"""Where `InjectArgs` takes a hidden argument's value from, per call.

- `FromContext("auth.subject")`: a dotted path on the request `Context` (`state.x` reads
  `ctx.state["x"]`).
- `FromHeader("x-tenant")`: an HTTP request header (case-insensitive).
- `FromClaim("sub")`: a claim of the caller's token (`ctx.auth.claims`).
- `FromEnv("API_KEY")`: an environment variable, read at call time.

When the value is missing and no `default=` was given, the call fails with `InjectionError`
naming the argument and the source (the variable, header or claim), never a value; it is an
internal error, so clients see the masked message and the server log says what is missing.

Example:
    >>> from toolweave.core.context import AuthInfo, Context
    >>> ctx = Context(auth=AuthInfo(subject="u-42"), state={"tenant": "acme"})
    >>> FromContext("auth.subject").get(ctx), FromContext("state.tenant").get(ctx)
    ('u-42', 'acme')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from toolweave.core.context import Context
from toolweave.core.errors import InjectionError
from toolweave.transforms.signature import NOT_SET


class Source:
    """Base of the built-in sources: `get(ctx)` returns the value or raises `InjectionError`.

    Subclass it with `label` and `lookup(ctx)` (return `NOT_SET` when the value is missing).

    Example:
        >>> class FromClientName(Source):
        ...     label = "the client name"
        ...     def lookup(self, ctx):
        ...         return ctx.client.name if ctx.client else NOT_SET
        >>> from toolweave.core.context import ClientInfo
        >>> FromClientName().get(Context(client=ClientInfo("claude")))
        'claude'
    """

    default: Any = NOT_SET
    secret: ClassVar[bool] = True
    """Whether the value is the server's (redacted from what the tool returns), not the caller's own."""
    varies: ClassVar[bool | None] = None
    """Whether the value is a plain read of the request (`Cache` keys on it), does not depend on
    it (`False`), or may in ways no key captures (`None`: the tool is never cached)."""

    @property
    def label(self) -> str:
        """How errors and `explain` name this source (never its value)."""
        raise NotImplementedError

    def lookup(self, ctx: Context) -> Any:
        """The value, or `NOT_SET` when it is missing."""
        raise NotImplementedError

    def get(self, ctx: Context) -> Any:
        """The value, the default when it is missing, else `InjectionError`."""
        value = self.lookup(ctx)
        if value is NOT_SET or value is None:
            if self.default is not NOT_SET:
                return self.default
            raise InjectionError(f"cannot fill an injected argument: {self.label} is not available")
        return value


CONTEXT_ROOTS = tuple(item.name for item in fields(Context) if not item.name.endswith("_sink"))
"""What a `FromContext` path may start with: the request `Context`'s data attributes (not its
progress and log sinks, which are functions)."""


def _step(value: Any, part: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(part, NOT_SET)
    return getattr(value, part, NOT_SET)


@dataclass(frozen=True, slots=True)
class FromContext(Source):
    """A value on the request `Context`, by dotted path: `"auth.subject"`, `"state.tenant"`, `"client.name"`.

    The path starts with one of the `Context`'s attributes (`CONTEXT_ROOTS`); any other start is
    a `ValueError` when the source is made, not a failure of every call.

    Example:
        >>> from toolweave.transforms import InjectArgs
        >>> per_user = InjectArgs(user_id=FromContext("auth.subject"))
        >>> FromContext("client.name", default="unknown").get(Context())  # in-process: no client
        'unknown'
        >>> FromContext("user.id")
        Traceback (most recent call last):
        ...
        ValueError: FromContext path 'user.id' starts with 'user', which the request context does not have: ...
    """

    path: str
    default: Any = NOT_SET
    secret: ClassVar[bool] = False
    varies: ClassVar[bool | None] = True

    def __post_init__(self) -> None:
        if not self.path or any(not part for part in self.path.split(".")):
            raise ValueError(f"FromContext path {self.path!r} is not a dotted attribute path")
        root = self.path.split(".", 1)[0]
        if root not in CONTEXT_ROOTS:
            raise ValueError(
                f"FromContext path {self.path!r} starts with {root!r}, which the request context does not have: "
                f"it starts with one of {', '.join(CONTEXT_ROOTS)}"
            )

    @property
    def label(self) -> str:
        return f"the request context ({self.path})"

    def lookup(self, ctx: Context) -> Any:
        value: Any = ctx
        for part in self.path.split("."):
            if value is None or value is NOT_SET:
                return NOT_SET
            value = _step(value, part)
        return value


@dataclass(frozen=True, slots=True)
class _Named(Source):
    """A source of one value found by name (a header, a claim, an environment variable)."""

    name: str
    default: Any = NOT_SET
    secret: ClassVar[bool] = False
    varies: ClassVar[bool | None] = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"{type(self).__name__} needs the name of what to read, not {self.name!r}")


@dataclass(frozen=True, slots=True)
class FromHeader(_Named):
    """An HTTP request header (case-insensitive); missing on stdio and in-process calls.

    Example:
        >>> from toolweave.transforms import InjectArgs
        >>> per_tenant = InjectArgs(tenant=FromHeader("x-tenant"))
        >>> FromHeader("X-Tenant").get(Context(headers={"x-tenant": "acme"}))
        'acme'
    """

    @property
    def label(self) -> str:
        return f"the HTTP header {self.name!r}"

    def lookup(self, ctx: Context) -> Any:
        headers = ctx.headers
        value = headers.get(self.name.lower(), NOT_SET)
        if value is NOT_SET:
            wanted = self.name.lower()
            value = next((v for k, v in headers.items() if k.lower() == wanted), NOT_SET)
        return value


@dataclass(frozen=True, slots=True)
class FromClaim(_Named):
    """A claim of the authenticated caller's token (`ctx.auth.claims[name]`).

    Example:
        >>> from toolweave.core.context import AuthInfo
        >>> from toolweave.transforms import InjectArgs
        >>> per_org = InjectArgs(org=FromClaim("org_id"))
        >>> FromClaim("org_id").get(Context(auth=AuthInfo(subject="u-1", claims={"org_id": "o-7"})))
        'o-7'
    """

    @property
    def label(self) -> str:
        return f"the token claim {self.name!r}"

    def lookup(self, ctx: Context) -> Any:
        if ctx.auth is None:
            return NOT_SET
        return ctx.auth.claims.get(self.name, NOT_SET)


@dataclass(frozen=True, slots=True)
class FromEnv(_Named):
    """An environment variable, read at every call (so rotating it needs no restart).

    Example:
        >>> from toolweave.transforms import InjectArgs
        >>> keyed = InjectArgs(api_key=FromEnv("WEATHER_API_KEY"))
        >>> FromEnv("TOOLWEAVE_EXAMPLE_UNSET").get(Context())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        toolweave.core.errors.InjectionError: ...the environment variable 'TOOLWEAVE_EXAMPLE_UNSET'...
    """

    secret: ClassVar[bool] = True
    varies: ClassVar[bool | None] = False

    @property
    def label(self) -> str:
        return f"the environment variable {self.name!r}"

    def lookup(self, ctx: Context) -> Any:
        return os.environ.get(self.name, NOT_SET)

    @property
    def missing(self) -> bool:
        """Whether the variable is unset and there is no default (every call would fail)."""
        return self.default is NOT_SET and self.name not in os.environ

    def get(self, ctx: Context) -> Any:
        value = os.environ.get(self.name)
        if value is None:
            if self.default is not NOT_SET:
                return self.default
            raise InjectionError(f"cannot fill an injected argument: the environment variable {self.name!r} is not set")
        return value


@dataclass(frozen=True, slots=True)
class Secret:
    """A constant injected value the client must never read back (an API key in code or config).

    Unlike a plain constant, it is redacted from whatever the tool returns, and its `repr` hides it.

    Example:
        >>> from toolweave.transforms import InjectArgs
        >>> keyed = InjectArgs(api_key=Secret("sk-live-0123456789"))
        >>> Secret("sk-live-0123456789")
        Secret('...')
    """

    value: Any

    def __repr__(self) -> str:
        return "Secret('...')"
