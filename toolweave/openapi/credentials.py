"""Upstream credentials of an HTTP API: the headers toolweave adds to every request it sends.

Each value is a constant, a `Secret` (a constant never shown), or a source read at every call:
`FromEnv("API_TOKEN")` (rotated without a restart), `FromClaim(...)`, `FromContext(...)`, or
`FromHeader("authorization")` — the one way to send the caller's own token upstream, which
toolweave never does unless told so. A template puts the value in its place:
`("Bearer {}", FromEnv("API_TOKEN"))`.

Example:
    >>> import os
    >>> from toolweave.transforms import FromEnv
    >>> os.environ["DEMO_API_TOKEN"] = "t0k"
    >>> headers = Credentials({"authorization": ("Bearer {}", FromEnv("DEMO_API_TOKEN")), "x-app": "demo"})
    >>> headers(Context())
    {'x-app': 'demo', 'authorization': 'Bearer t0k'}
    >>> headers.describe()
    {'authorization': "the environment variable 'DEMO_API_TOKEN'", 'x-app': 'demo'}
    >>> del os.environ["DEMO_API_TOKEN"]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolweave.core.context import Context
from toolweave.core.errors import InjectionError
from toolweave.core.shown import HIDDEN, is_credential_name
from toolweave.transforms.sources import Secret, Source

HeaderValue = str | Secret | Source | tuple[str, Source | Secret]
"""A header's value: a constant, a `Secret`, a source, or `(template, source)` with `{}` in the template."""


class Credentials:
    """The upstream headers of one API, resolved once; call it with a request's `Context`.

    Raises:
        TypeError: a value is none of the accepted kinds (at construction).
        InjectionError: at call time, a source has no value (the message names the header and
            the source, never a value; an internal error, masked for clients).

    Attributes:
        labels: Each header and where its value comes from, as `explain` shows it.
        public: The headers whose values are no secret: constants under a name that says
            nothing of keys or tokens (`accept`, `x-app`). The others' values are scrubbed from
            what the API answers (`toolweave.openapi.call`).
    """

    __slots__ = ("_constant", "_read", "labels", "public")

    def __init__(self, headers: Mapping[str, HeaderValue] | None) -> None:
        self._constant: dict[str, str] = {}
        self._read: list[tuple[str, str, Source]] = []
        self.labels: dict[str, str] = {}
        public: set[str] = set()
        for name, value in (headers or {}).items():
            template, value = value if isinstance(value, tuple) else ("{}", value)
            if isinstance(value, str):
                secret = is_credential_name(name)
                self._constant[name] = value
                self.labels[name] = HIDDEN if secret else value
                if not secret:
                    public.add(name)
            elif isinstance(value, Secret):
                self._constant[name] = template.replace("{}", str(value.value))
                self.labels[name] = "a secret"
            elif isinstance(value, Source):
                self._read.append((name, template, value))
                self.labels[name] = value.label
            else:
                raise TypeError(
                    f"upstream header {name!r}: expected a string, a Secret or a source such as FromEnv(...), "
                    f"not {type(value).__name__}"
                )

        self.public = frozenset(public)

    def __bool__(self) -> bool:
        return bool(self._constant or self._read)

    def __call__(self, ctx: Context) -> dict[str, str]:
        if not self._read:
            return self._constant
        headers = dict(self._constant)
        for name, template, source in self._read:
            try:
                headers[name] = template.replace("{}", str(source.get(ctx)))
            except InjectionError:
                raise InjectionError(f"upstream header {name!r}: {source.label} is not available") from None
        return headers

    def cookie_names(self) -> frozenset[str]:
        """The names of the cookies the `cookie` header sends, as its constant, secret or template
        says (a source alone says none): like a header the server sends, such a cookie is no
        argument of the operations that declare it, so a model cannot send one of its own first.

        Example:
            >>> from toolweave.transforms import FromEnv
            >>> Credentials({"Cookie": ("sid={}; lang=en", FromEnv("SID"))}).cookie_names() == {"sid", "lang"}
            True
        """
        texts = [value for name, value in self._constant.items() if name.lower() == "cookie"]
        texts += [template for name, template, _ in self._read if name.lower() == "cookie"]
        return frozenset(part.partition("=")[0].strip() for text in texts for part in text.split(";") if "=" in part)

    def sources(self) -> list[Source]:
        """The sources read at every call (`FromEnv(...)`, ...), for startup checks."""
        return [source for _, _, source in self._read]

    def describe(self) -> dict[str, Any]:
        """Each header and where its value comes from (never a secret value), for `explain`."""
        return dict(self.labels)
