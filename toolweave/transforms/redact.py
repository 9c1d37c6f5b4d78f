"""Values the server injected into a call never come back to the client: `RedactingRun`.

A tool behind `InjectArgs` (or a hidden `Arg` with a fixed value) receives values the client
never sees: an API key from the environment, a constant, what one of your functions returned.
Whatever the tool hands back — its text, its structured content, its `_meta`, an error message
(an upstream quoting the URL it was called with, `...&api_key=S3CR3T`), the progress messages
and log messages it sends while it runs — is scrubbed of the values injected into *that* call,
each occurrence replaced by `[redacted]`, before it leaves the tool. The argument map knows
which values it injected; `RedactingRun` sits at the base of the map, so this happens once per
call, below every middleware (logging sees the scrubbed failure too).

Which values — the rule: a value the server supplies (`FromEnv`, your functions, `Secret(...)`
constants) that is text of at least `MIN_SECRET_LENGTH` characters. Shorter text (`eu`, `true`,
`42`) would garble ordinary results and is not a credential anyway. Values that come from the
caller's own request (`FromHeader`, `FromClaim`, `FromContext`) are the caller's already, and
plain constants are the operator's settings (a unit, a region, a base URL); both are left alone
— wrap a constant credential in `Secret(...)`.

Errors are scrubbed in place (their arguments, notes, `OSError` file names, causes and exception
groups); one whose text still holds a secret (pydantic's `ValidationError` quotes its input) is
replaced by a `RedactedError` with the scrubbed text and the original traceback.

While such a call runs, its secrets are also `IN_FLIGHT`: what reads an upstream's messages
before toolweave does (the SDK's client span records a JSON-RPC error's message) scrubs them
there first, and the CLI's log filter hides them. So are the credentials toolweave presents to its
upstreams (`toolweave.auth.Bearer`, `OAuthClientCredentials`), each a `HeldSecret` from its first
use until a newer one replaces it: they go with every request to the upstream, whichever call made
it, so no call's run could count them.

Example:
    >>> import anyio
    >>> from toolweave.core.context import Context
    >>> from toolweave.core.result import ToolResult
    >>> async def leaky(arguments, ctx):
    ...     return ToolResult.error(f"GET /v1?key={arguments['key']} failed")
    >>> run = RedactingRun(leaky, frozenset({"key"}))
    >>> anyio.run(run, {"key": "S3CR3T-0123"}, Context()).text
    'GET /v1?key=[redacted] failed'
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections.abc import Iterable
from typing import Any

from pydantic_core import to_json

from toolweave.core.context import Context, LogLevel, enter_context, exit_context
from toolweave.core.errors import RedactedError, ToolError
from toolweave.core.memo import Memo
from toolweave.core.result import ToolResult
from toolweave.core.shown import quoted_forms
from toolweave.core.tool import Run

_SILENT_PROGRESS, _SILENT_LOG = Context().progress_sink, Context().log_sink
"""The sinks of a context that sends nothing anywhere."""
MIN_SECRET_LENGTH = 8
"""Injected text shorter than this is not redacted."""
REDACTED = "[redacted]"


class RedactingRun:
    """The base tool's `run`, with the secret values of each call scrubbed from what it returns,
    raises or reports.

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
        secrets: list[str] = []
        values = 0
        for name in self.names:  # a plain loop: every call of such a tool passes here
            value = arguments.get(name)
            if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH:
                secrets += _FORMS.get(value, secret_forms, value)
                values += 1
        if not secrets:
            return await self.inner(arguments, ctx)
        if values > 1:  # (one value's forms come longest first)
            secrets.sort(key=len, reverse=True)  # a secret containing another goes first
        flight = IN_FLIGHT if IN_FLIGHT.watched else None
        if flight is not None:
            flight.add(secrets)
        scrubbing = _scrubbing_sinks(ctx, secrets)
        # what `get_context()` returns inside the tool, too (a sync tool's thread gets a copy of it)
        entered = enter_context(scrubbing) if scrubbing is not ctx else None
        try:
            result = await self.inner(arguments, scrubbing)
        except BaseException as error:
            cleaned = scrub_error(error, secrets)
            if cleaned is error:
                raise
        else:
            return scrub_result(result, secrets)
        finally:
            if entered is not None:
                exit_context(entered)
            if flight is not None:
                flight.remove(secrets)
        raise cleaned  # outside the handler, so the unscrubbed original is not chained to it


class SecretsInFlight:
    """The secrets of the calls running now, each counted once per call that carries it (and once
    per `HeldSecret` that holds it).

    A call's are counted only once something `watched` them (an upstream's read stream): until
    then a call pays nothing for it.

    Example:
        >>> running = SecretsInFlight()
        >>> running.add(["S3CR3T-0123"])
        >>> running.scrub({"message": "GET /v1?key=S3CR3T-0123"})
        {'message': 'GET /v1?key=[redacted]'}
        >>> running.remove(["S3CR3T-0123"])
        >>> running.scrub("GET /v1?key=S3CR3T-0123")
        'GET /v1?key=S3CR3T-0123'
    """

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.watched = False
        self._longest_first: list[str] | None = []  # (None: to sort again)

    def add(self, secrets: list[str]) -> None:
        for secret in secrets:
            self.counts[secret] = self.counts.get(secret, 0) + 1
        self._longest_first = None

    def remove(self, secrets: list[str]) -> None:
        for secret in secrets:
            left = self.counts[secret] - 1
            if left:
                self.counts[secret] = left
            else:
                del self.counts[secret]
        self._longest_first = None

    def scrub(self, value: Any) -> Any:
        """`value` (text, or JSON-like data) with every secret in flight replaced by `[redacted]`.

        JSON-like data is first searched as its JSON text (one C-speed dump, and each secret's
        JSON-escaped forms are among the secrets): data that holds none, the common case, is not walked.
        """
        if not self.counts:
            return value
        secrets = self._longest_first
        if secrets is None:
            secrets = self._longest_first = sorted(self.counts, key=len, reverse=True)
        if not isinstance(value, str):
            try:
                text = to_json(value).decode()
            except (ValueError, TypeError):  # (not JSON-like after all: walked)
                pass
            else:
                for secret in secrets:
                    if secret in text:
                        break
                else:
                    return value
        return scrub(value, secrets)


IN_FLIGHT = SecretsInFlight()
"""The secrets of every call running in this process, and the upstream credentials in use (`HeldSecret`)."""


class HeldSecret:
    """One credential kept `IN_FLIGHT` while it is in use: the value `hold` was given last, and the
    one before it (an answer to a request sent with that one may still be on its way), until
    `release()`, or until the holder is collected (a config reloaded without it). A value shorter
    than `MIN_SECRET_LENGTH` is not held, as it is not redacted from a call.

    Example:
        >>> credential = HeldSecret()
        >>> credential.hold("ghp_0123456789")
        >>> IN_FLIGHT.scrub("you sent: Bearer ghp_0123456789")
        'you sent: Bearer [redacted]'
        >>> credential.release()
        >>> IN_FLIGHT.scrub("you sent: Bearer ghp_0123456789")
        'you sent: Bearer ghp_0123456789'
    """

    __slots__ = ("__weakref__", "_held")

    def __init__(self) -> None:
        self._held: list[str] = []  # the latest first (a list the finalizer shares: it sees the latest)
        weakref.finalize(self, _let_go, self._held)

    def __repr__(self) -> str:
        return "HeldSecret(...)"

    def hold(self, value: str) -> None:
        """Hold `value` from now on (every request passes here: the same value again costs a comparison)."""
        held = self._held
        if (held and held[0] == value) or len(value) < MIN_SECRET_LENGTH:
            return
        IN_FLIGHT.add(secret_forms(value))
        for before in held[1:]:  # the one before the one before: its answers are in
            IN_FLIGHT.remove(secret_forms(before))
        held[:] = [value, *held[:1]]

    def release(self) -> None:
        """Hold nothing any more."""
        _let_go(self._held)


def held_secrets(values: Iterable[str]) -> list[HeldSecret]:
    """Each of `values` held in flight for as long as the list is kept (a fixed credential).

    Example:
        >>> credentials = held_secrets(["ghp_0123456789"])
        >>> IN_FLIGHT.scrub("you sent: Bearer ghp_0123456789")
        'you sent: Bearer [redacted]'
        >>> del credentials
        >>> IN_FLIGHT.scrub("you sent: Bearer ghp_0123456789")
        'you sent: Bearer ghp_0123456789'
    """
    held = []
    for value in values:
        secret = HeldSecret()
        secret.hold(value)
        held.append(secret)
    return held


def _let_go(held: list[str]) -> None:
    for value in held:
        IN_FLIGHT.remove(secret_forms(value))
    held.clear()


def secret_forms(value: str) -> list[str]:
    """`value` in each form a message may quote it (as it is, JSON-escaped, URL-encoded: an
    upstream quoting the URL it was called with writes `%2B` for `+`), the longest first.

    Example:
        >>> secret_forms("S3CR3T+abc=def")
        ['S3CR3T%2Babc%3Ddef', 'S3CR3T+abc=def']
    """
    return sorted(quoted_forms(value), key=lambda form: (-len(form), form))


_FORMS: Memo[list[str]] = Memo(limit=256)
"""The forms of the secrets calls carry (mostly the same few values, call after call)."""


def every_form(values: Iterable[str]) -> list[str]:
    """Every form (`secret_forms`) of each of `values` long enough to be a secret
    (`MIN_SECRET_LENGTH`), the longest first: what `scrub` takes.

    Example:
        >>> every_form(["t0k3n/abc", "short"])
        ['t0k3n%2Fabc', 't0k3n/abc']
    """
    long_enough = [value for value in values if len(value) >= MIN_SECRET_LENGTH]
    forms = {form for value in long_enough for form in _FORMS.get(value, secret_forms, value)}
    return sorted(forms, key=lambda form: (-len(form), form))


def wrap(inner: Run, names: Iterable[str]) -> Run:
    """`inner` behind one `RedactingRun` for `names` (merged with one already there), or `inner` alone."""
    if isinstance(inner, RedactingRun):
        names = inner.names | frozenset(names)
        inner = inner.inner
    names = frozenset(names)
    return RedactingRun(inner, names) if names else inner


def scrub(value: Any, secrets: list[str]) -> Any:
    """`value` (text, or JSON-like data) with every secret replaced by `[redacted]`; a value that
    holds none is returned as it is (no copy)."""
    return _replaced(value, secrets) if holds_secret(value, secrets) else value


def holds_secret(value: Any, secrets: list[str]) -> bool:
    """Whether `value` (text, or JSON-like data, keys included) contains one of `secrets`.

    Every result of a call with an injected secret passes here: plain loops, since a generator
    per value (`any(...)`) costs a call ~0.7 µs more.
    """
    if isinstance(value, str):
        for secret in secrets:  # noqa: SIM110
            if secret in value:
                return True
        return False
    if isinstance(value, dict):
        for key, item in value.items():  # noqa: SIM110
            if holds_secret(key, secrets) or holds_secret(item, secrets):
                return True
        return False
    if isinstance(value, (list, tuple)):
        for item in value:
            if holds_secret(item, secrets):
                return True
    return False


def _replaced(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {_replaced(key, secrets): _replaced(item, secrets) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_replaced(item, secrets) for item in value)
    return value


def scrub_result(result: ToolResult, secrets: list[str]) -> ToolResult:
    """`result` with the secrets scrubbed from its text blocks, embedded text, structured content and
    `_meta`; a result that holds none is returned as it is.

    Every result of a call with an injected secret passes here: the text of a block is searched
    in place (a call per block costs a plain text result ~0.3 µs more).
    """
    for block in result.content:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            for secret in secrets:
                if secret in text:
                    return _scrubbed(result, secrets)
        elif text is None and holds_secret(getattr(getattr(block, "resource", None), "text", None), secrets):
            return _scrubbed(result, secrets)
    structured, meta = result.structured_content, result.meta
    if (structured is not None and holds_secret(structured, secrets)) or (meta and holds_secret(meta, secrets)):
        return _scrubbed(result, secrets)
    return result


def _scrubbed(result: ToolResult, secrets: list[str]) -> ToolResult:
    return dataclasses.replace(
        result,
        content=[_scrub_block(block, secrets) for block in result.content],
        structured_content=scrub(result.structured_content, secrets),
        meta=scrub(result.meta, secrets),
    )


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


def _scrubbing_sinks(ctx: Context, secrets: list[str]) -> Context:
    """`ctx` for the tool: progress and log messages it sends go out scrubbed (a copy of the
    context with wrapped sinks; `state` and everything else is shared). A context whose sinks
    send nothing (an in-process call) is used as it is."""
    progress, log = ctx.progress_sink, ctx.log_sink
    if progress is _SILENT_PROGRESS and log is _SILENT_LOG:
        return ctx

    async def scrubbed_progress(value: float, total: float | None, message: str | None) -> None:
        await progress(value, total, scrub(message, secrets))

    async def scrubbed_log(level: LogLevel, data: Any, logger: str | None) -> None:
        await log(level, scrub(data, secrets), logger)

    return dataclasses.replace(ctx, progress_sink=scrubbed_progress, log_sink=scrubbed_log)


def scrub_error(error: BaseException, secrets: list[str]) -> BaseException:
    """`error` with the secrets scrubbed from its message, notes, causes and inner exceptions.

    Scrubbed in place where the text comes from what can be changed; an exception whose text
    still holds a secret is replaced (in the chain, or as the result) by a `RedactedError`.
    """
    return _scrub_chain(error, secrets, set())


def _scrub_chain(error: BaseException, secrets: list[str], seen: set[int]) -> BaseException:
    if id(error) in seen:
        return error
    seen.add(id(error))
    cleaned = _scrub_one(error, secrets, seen)
    suppress = cleaned.__suppress_context__
    if cleaned.__cause__ is not None:
        cleaned.__cause__ = _scrub_chain(cleaned.__cause__, secrets, seen)
    if cleaned.__context__ is not None:
        cleaned.__context__ = _scrub_chain(cleaned.__context__, secrets, seen)
    cleaned.__suppress_context__ = suppress
    return cleaned


def _scrub_one(error: BaseException, secrets: list[str], seen: set[int]) -> BaseException:
    with contextlib.suppress(AttributeError, TypeError):  # some native exceptions refuse new args
        error.args = tuple(scrub(arg, secrets) for arg in error.args)
    notes = getattr(error, "__notes__", None)
    if isinstance(notes, list):
        error.__notes__ = [scrub(note, secrets) for note in notes]
    if isinstance(error, OSError):
        for attribute in ("filename", "filename2"):
            if isinstance(name := getattr(error, attribute), str):
                setattr(error, attribute, scrub(name, secrets))
    if isinstance(error, BaseExceptionGroup):
        inner = [_scrub_chain(member, secrets, seen) for member in error.exceptions]
        if any(a is not b for a, b in zip(inner, error.exceptions, strict=True)):
            error = _with_links(error.derive(inner), error)
    if not _shows_a_secret(error, secrets):
        return error
    text = scrub(_text(error), secrets)
    stand_in = ToolError(text) if isinstance(error, ToolError) else RedactedError(f"{type(error).__name__}: {text}")
    return _with_links(stand_in, error)


def _with_links(new: BaseException, old: BaseException) -> BaseException:
    """`new`, given `old`'s traceback, causes and notes."""
    new.__traceback__ = old.__traceback__
    new.__cause__, new.__context__ = old.__cause__, old.__context__
    new.__suppress_context__ = old.__suppress_context__
    notes = getattr(old, "__notes__", None)
    if notes is not None:
        new.__notes__ = list(notes)
    return new


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # a broken __str__ shows nothing (the traceback module does the same)
        return ""


def _shows_a_secret(error: BaseException, secrets: list[str]) -> bool:
    shown = _text(error)
    return any(secret in shown for secret in secrets)
