"""Error masking: what a client learns when a tool fails, and the incident log line.

`ToolError` messages (and their subclasses: invalid arguments, timeouts, upstream failures,
rejections) always reach the client. Any other exception is internal: masked, the client gets
`Error calling tool '<name>' (incident <id>)` and the server logs the traceback once under the
same id; unmasked (`mask_error_details=False`), the client gets `ExceptionType: message`.

Example:
    >>> policy = ErrorPolicy(mask=True)
    >>> result = policy.to_result("search", KeyError("secret"))
    >>> result.is_error, "secret" in result.text
    (True, False)
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
from dataclasses import dataclass

import anyio

from toolweave.core.deadlines import cancel_requested
from toolweave.core.errors import InjectionError, ToolError
from toolweave.core.result import ToolResult

logger = logging.getLogger("toolweave.errors")
_INCIDENT_ATTR = "__toolweave_incident__"


def incident_id(error: BaseException) -> str:
    """A short id for this exception, the same every time it is asked for."""
    existing: str | None = getattr(error, _INCIDENT_ATTR, None)
    if existing is None:
        existing = secrets.token_hex(4)
        with contextlib.suppress(AttributeError):  # exceptions with __slots__ cannot carry it
            setattr(error, _INCIDENT_ATTR, existing)
    return existing


class InternalFailure(ToolError):
    """An internal failure of a prompt or resource as its client reads it (the masked message),
    with the incident id of the failure behind it (`incident_id` answers the same): a tool that
    answers with it (`get_prompt` of `PromptsAsTools`) failed as the prompt did, for telemetry."""


def is_cancellation(error: BaseException) -> bool:
    """Whether `error` is the running task being cancelled (to let through), not a failure to mask.

    A client's `notifications/cancelled`, a closed connection, an expired outer deadline (an anyio
    scope's, or a `Timeout`'s, which cancels the task natively) cancel the task: their
    cancellation exception must propagate. The same exception raised by a tool
    on its own (no cancellation in effect), `SystemExit`, `KeyboardInterrupt` or any other
    `BaseException` a tool raises is the tool failing, and is masked like any other error.

    Example:
        >>> import anyio
        >>> async def raised_by_a_tool() -> tuple[bool, bool]:
        ...     return is_cancellation(anyio.get_cancelled_exc_class()()), is_cancellation(SystemExit(2))
        >>> anyio.run(raised_by_a_tool)
        (False, False)
    """
    if isinstance(error, BaseExceptionGroup):
        if not all(is_cancellation(inner) for inner in error.exceptions):
            return False
    elif not isinstance(error, anyio.get_cancelled_exc_class()):
        return False
    return anyio.current_effective_deadline() == -math.inf or cancel_requested()


_VERBS = {"tool": "calling", "prompt": "rendering", "resource": "reading"}


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    """How failures of a tool, prompt or resource reach the client.

    Attributes:
        mask: Hide internal errors behind a generic message with an incident id.
        message: The generic message (`{name}` and `{incident}` are filled in).
        passthrough: Exception types whose message always reaches the client.
    """

    mask: bool = True
    message: str | None = None
    passthrough: tuple[type[BaseException], ...] = (ToolError,)

    def client_message(self, kind: str, name: str, error: BaseException) -> str:
        """What the client reads about `error` from the `kind` named `name` (as it called it).

        A passthrough error keeps its message; anything else is internal: logged once with an
        incident id (a failed injection in one line, anything else with its traceback) and, with
        masking on, replaced by `Error calling tool '<name>' (incident <id>)`.
        """
        if isinstance(error, ToolError) and isinstance(error, self.passthrough):
            return error.for_tool(name)
        if isinstance(error, self.passthrough):
            return str(error) or type(error).__name__
        incident = incident_id(error)
        if isinstance(error, InjectionError):  # a missing variable, header or claim: one line says it all
            logger.error("%s %r: %s (incident %s)", kind, name, error, incident, extra={"incident": incident})
        else:
            extra = {"tool": name, "incident": incident} if kind == "tool" else {"incident": incident}
            logger.error("%s %r failed (incident %s)", kind, name, incident, exc_info=error, extra=extra)
        if not self.mask:
            return f"{type(error).__name__}: {error}"
        template = self.message or f"Error {_VERBS.get(kind, 'using')} {kind} '{{name}}' (incident {{incident}})"
        return template.format(name=name, incident=incident)

    def to_result(self, tool_name: str, error: BaseException) -> ToolResult:
        """The `isError` result a tool call that raised `error` answers."""
        return ToolResult.error(self.client_message("tool", tool_name, error))

    def to_error(self, kind: str, name: str, error: BaseException) -> ToolError:
        """The `ToolError` a failed prompt or resource answers (served as a JSON-RPC error)."""
        if isinstance(error, ToolError) and isinstance(error, self.passthrough):
            return error
        failure = InternalFailure(self.client_message(kind, name, error))
        setattr(failure, _INCIDENT_ATTR, incident_id(error))
        return failure
