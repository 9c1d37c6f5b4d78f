"""What became of a call, as one low-cardinality word (for metrics labels and span attributes).

One classification for the call span, the mount and upstream spans and the call metrics:

| outcome | when |
|---|---|
| `ok` | a result that is not an error |
| `tool_error` | an `isError` result, or a `ToolError` the tool raised |
| `invalid_arguments` | the arguments were refused before anything ran |
| `unknown_tool` | no tool has that name |
| `rejected` | a policy turned the call away (rate limit, open circuit, concurrency) |
| `timeout` | the call ran past its deadline |
| `upstream_error` | a remote upstream failed, went away or was unreachable |
| `input_required` / `missing_capability` | the tool needs something from the client first |
| `cancelled` | the call was cancelled (the client went away or cancelled it) |
| `error` | anything else: an internal error, masked for the client with an incident id (`InternalFailure`) |

Example:
    >>> from toolweave.core.errors import ToolTimeout
    >>> outcome_of(ToolTimeout("search", 2.0)), outcome_of(KeyError("x"))
    ('timeout', 'error')
"""

from __future__ import annotations

import anyio

from toolweave.core.errors import (
    InputRequired,
    InvalidArguments,
    MissingCapability,
    Rejected,
    ToolError,
    ToolTimeout,
    UnknownTool,
    UpstreamError,
)
from toolweave.core.masking import InternalFailure

INTERNAL = "error"
"""The outcome of an internal (masked) failure."""
_CLASSES: tuple[tuple[type[BaseException], str], ...] = (
    (InternalFailure, INTERNAL),  # (a prompt's or resource's, answered by a tool as a `ToolError`)
    (ToolTimeout, "timeout"),
    (Rejected, "rejected"),
    (InvalidArguments, "invalid_arguments"),
    (UpstreamError, "upstream_error"),
    (ToolError, "tool_error"),
    (UnknownTool, "unknown_tool"),
    (InputRequired, "input_required"),
    (MissingCapability, "missing_capability"),
)


def outcome_of(error: BaseException) -> str:
    """The outcome a call that raised `error` had."""
    for kind, outcome in _CLASSES:
        if isinstance(error, kind):
            return outcome
    return "cancelled" if _is_cancelled(error) else INTERNAL


def _is_cancelled(error: BaseException) -> bool:
    try:
        return isinstance(error, anyio.get_cancelled_exc_class())
    except RuntimeError:  # outside an event loop nothing is being cancelled
        return False


def error_type(error: BaseException) -> str:
    """The `error.type` of a failure: its class name (never its message, which may hold data)."""
    return type(error).__qualname__
