"""Values the server injected into a call never come back to the client: `RedactingRun`.

A tool behind `InjectArgs` (or a hidden `Arg` with a fixed value) receives values the client
never sees: an API key from the environment, a constant, what one of your functions returned.
Whatever the tool hands back — its text, its structured content, an error message (an upstream
quoting the URL it was called with, `...&api_key=S3CR3T`) — is scrubbed of the values injected
into *that* call, each occurrence replaced by `[redacted]`, before it leaves the tool.

Which values: everything the server supplies (environment, constants, factories, your
functions), as text of at least `MIN_SECRET_LENGTH` characters (shorter values such as `eu`,
`true` or `42` would garble ordinary text, and are not secrets anyway). Values that come from
the caller's own request (`FromHeader`, `FromClaim`, `FromContext`) are the caller's already and
are left alone.

Example:
    >>> import anyio
    >>> from toolweave.core.result import ToolResult
    >>> async def leaky(arguments, ctx):
    ...     return ToolResult.error(f"GET /v1?key={arguments['key']} failed")
    >>> run = RedactingRun(leaky, frozenset({"key"}))
    >>> anyio.run(run, {"key": "S3CR3T-0123"}, None).text
    'GET /v1?key=[redacted] failed'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from toolweave.core.context import Context
from toolweave.core.result import ToolResult
from toolweave.core.tool import Run

MIN_SECRET_LENGTH = 8
"""Injected text shorter than this is not redacted."""
REDACTED = "[redacted]"


class RedactingRun:
    """The base tool's `run`, with the secret values of each call scrubbed from what it returns or raises.

    Attributes:
        inner: The base tool's `run`.
        names: The base tool's arguments that carry server-supplied values.
    """

    __slots__ = ("inner", "names")

    def __init__(self, inner: Run, names: frozenset[str]) -> None:
        self.inner = inner
        self.names = names

    def __repr__(self) -> str:
        return f"RedactingRun({sorted(self.names)!r})"

    async def __call__(self, arguments: dict[str, Any], ctx: Context) -> ToolResult:
        secrets = [
            value
            for name in self.names
            if isinstance(value := arguments.get(name), str) and len(value) >= MIN_SECRET_LENGTH
        ]
        if not secrets:
            return await self.inner(arguments, ctx)
        secrets.sort(key=len, reverse=True)  # a secret containing another goes first
        try:
            result = await self.inner(arguments, ctx)
        except BaseException as error:
            scrub_error(error, secrets)
            raise
        return scrub_result(result, secrets)


def wrap(inner: Run, names: Iterable[str]) -> Run:
    """`inner` behind one `RedactingRun` for `names` (merged with one already there), or `inner` alone."""
    if isinstance(inner, RedactingRun):
        names = inner.names | frozenset(names)
        inner = inner.inner
    names = frozenset(names)
    return RedactingRun(inner, names) if names else inner


def scrub(value: Any, secrets: list[str]) -> Any:
    """`value` (text, or JSON-like data) with every secret replaced by `[redacted]`."""
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {scrub(key, secrets): scrub(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub(item, secrets) for item in value)
    return value


def scrub_result(result: ToolResult, secrets: list[str]) -> ToolResult:
    """`result` with the secrets scrubbed from its text blocks, embedded text and structured content."""
    content = [_scrub_block(block, secrets) for block in result.content]
    structured = scrub(result.structured_content, secrets)
    if structured is result.structured_content and all(a is b for a, b in zip(content, result.content, strict=True)):
        return result
    return dataclasses.replace(result, content=content, structured_content=structured)


def _scrub_block(block: Any, secrets: list[str]) -> Any:
    text = getattr(block, "text", None)
    if isinstance(text, str):
        cleaned = scrub(text, secrets)
        return block if cleaned is text else dataclasses.replace(block, text=cleaned)
    inner = getattr(block, "resource", None)
    if inner is not None and isinstance(getattr(inner, "text", None), str):
        cleaned_inner = _scrub_block(inner, secrets)
        return block if cleaned_inner is inner else dataclasses.replace(block, resource=cleaned_inner)
    return block


def scrub_error(error: BaseException, secrets: list[str]) -> None:
    """Scrub the secrets from `error`'s message (and its causes'), in place."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(scrub(arg, secrets) for arg in current.args)
        if isinstance(current, BaseExceptionGroup):
            for inner in current.exceptions:
                scrub_error(inner, secrets)
        current = current.__cause__ or current.__context__
