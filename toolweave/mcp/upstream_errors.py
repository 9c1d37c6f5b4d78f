"""What an upstream's failures tell the caller and the logs.

- `translated`: an upstream's JSON-RPC error answering a request, as toolweave's error. It went
  away (the SDK's `CONNECTION_CLOSED`, -32000, with a message the SDK makes up itself, or a
  server's as it shuts down: `_connection_closed`): an `UpstreamError` saying so. The event
  stream of that one request failed (streamable HTTP: an answer past `MAX_EVENT_BYTES`, a stream that is not one):
  an `UpstreamError` quoting why; the session lives on. It refused the arguments
  (`-32602`, or `-32002` "resource not found" of earlier spec revisions): an `UpstreamError`
  with code `-32602` quoting the upstream. It could not serve the request over the gateway's
  session to it: one that needs a client capability the session lacks (`-32021`), or a
  handshake-era upstream's request for input the gateway does not pass on: an `UpstreamError`
  saying so (not a masked internal error). Anything else: `UpstreamFailed` (internal: masked), a
  -32000 of the upstream's own too (JSON-RPC's range of server errors: FastMCP answers a
  `PermissionError` so): the session lives on.
- `session_ended`: whether the error also says the session is gone (the caller drops it): not
  for a request whose own event stream failed.
- `describe_failure`: why a connection failed, in one line (`Type: message` of its innermost cause;
  an answer the SDK found invalid: the model and the first place it is wrong, not pydantic's
  multi-line report).

Example:
    >>> call = mt.CallToolRequest(params=mt.CallToolRequestParams(name="echo", arguments={"color": "red"}))
    >>> refused = MCPError(mt.INVALID_PARAMS, "unknown field 'color'")
    >>> str(translated(refused, label="gh", era="2025", action="the call to 'echo'", tool="echo", request=call))
    "upstream 'gh' refused the call to 'echo': unknown field 'color'"
    >>> describe_failure(ExceptionGroup("unhandled errors", [FileNotFoundError("no such file")]))
    'FileNotFoundError: no such file'
    >>> try:
    ...     mt.ListPromptsResult.model_validate({"prompts": [{"name": "ok"}, {"title": "no name"}]})
    ... except ValidationError as invalid:
    ...     describe_failure(invalid)
    'invalid ListPromptsResult: prompts.1.name: Field required'
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
from mcp import MCPError
from pydantic import ValidationError

from toolweave.core.errors import UpstreamError, UpstreamFailed
from toolweave.mcp.shutdown import CUT_SHORT, REFUSED_NEW
from toolweave.telemetry.withheld import values_in, withhold

_CLOSED = frozenset(
    {
        "Connection closed",  # the SDK's own, for every request waiting when a connection closes
        "SSE stream ended without a response",  # the streamable HTTP client's, for one request
        "SSE stream ended and reconnection attempts were exhausted",
        REFUSED_NEW,  # a toolweave upstream's, shutting down
    }
)
"""The messages of the `CONNECTION_CLOSED` (-32000) errors that say a request's answer can never
come: the SDK makes them up itself (an SDK server also answers "Connection closed" as it stops)."""
_STREAM_FAILED = "SSE stream failed: "
"""How the SDK's streamable HTTP client begins the `CONNECTION_CLOSED` it answers a request with
when that request's own event stream failed (`httpx2.SSEError`): the session is not gone."""
_REFUSED_PARAMS = (mt.INVALID_PARAMS, -32002)  # -32002: "resource not found" of earlier spec revisions
_INPUT_REFUSED = {
    "Elicitation not supported": "elicitation/create",
    "Sampling not supported": "sampling/createMessage",
    "List roots not supported": "roots/list",
}
"""What the SDK's `ClientSession` answers (`-32600`) an upstream's request for input it has no
callback for (an upstream session has none), by the method refused: the upstream's error then
quotes it."""


def _connection_closed(error: MCPError) -> bool:
    """Whether `error` is a `CONNECTION_CLOSED` the SDK made up (the connection closed, or a
    request's own stream failed), or a server's as it shuts down, not an upstream's own -32000."""
    said = error.error.message
    return error.error.code == mt.CONNECTION_CLOSED and (
        said in _CLOSED or said.startswith((_STREAM_FAILED, CUT_SHORT))
    )


def session_ended(error: MCPError) -> bool:
    """Whether `error` says the session it came over is gone (closed, or terminated by the upstream)."""
    if _connection_closed(error):
        return not error.error.message.startswith(_STREAM_FAILED)
    return error.error.message == "Session terminated"


def translated(
    error: MCPError, *, label: str, era: str | None, action: str, tool: str | None, request: Any
) -> UpstreamError | UpstreamFailed:
    """The error for the caller of `request` (`action`, in the message; `tool`, the name the
    errors quote) that upstream `label`, spoken to in `era`, answered with `error`."""
    code = error.error.code
    if _connection_closed(error):
        said = error.error.message
        if said.startswith(_STREAM_FAILED):
            why = said.removeprefix(_STREAM_FAILED)
            return UpstreamError(f"upstream {label!r} answered {action} with a stream that failed: {why}", tool=tool)
        return UpstreamError(f"upstream {label!r} went away during {action}", tool=tool)
    if code in _REFUSED_PARAMS:
        message = f"upstream {label!r} refused {action}: {_quotable(error.error.message, request)}"
        return UpstreamError(message, code=mt.INVALID_PARAMS, tool=tool)
    unserved = _unserved(error, label, era, action, request)
    if unserved is not None:
        return UpstreamError(unserved, code=code, tool=tool)
    return UpstreamFailed(f"upstream {label!r} failed {action} (JSON-RPC {code}): {error.error.message}")


def _unserved(error: MCPError, label: str, era: str | None, action: str, request: Any) -> str | None:
    """What to tell the caller of a request the upstream could not serve over this gateway's
    session to it (else None: an internal error): one that needs a client capability the
    session lacks (`-32021`), or a handshake-era upstream's request for input."""
    code, said = error.error.code, _quotable(error.error.message, request)
    if code == mt.MISSING_REQUIRED_CLIENT_CAPABILITY:
        spoken = "2025 handshake" if era != "2026" else "2026-07-28"
        return (
            f"upstream {label!r} refused {action}: it needs a client capability the gateway's "
            f"{spoken} session to it does not declare: {said}"
        )
    asked = _INPUT_REFUSED.get(error.error.message) if code == mt.INVALID_REQUEST else None
    if asked is not None and era != "2026":
        return (
            f"upstream {label!r} asked for input ({asked}) during {action}: the gateway passes on "
            "input only from an upstream spoken to in the 2026-07-28 era, and this one is spoken to with "
            "the 2025 handshake"
        )
    return None


def _quotable(message: str, request: Any) -> str:
    """An upstream's refusal of `request`, as the gateway may quote it in its own JSON-RPC error.

    A refused call becomes an `isError` result, which no span records: its message is kept whole.
    A refused prompt becomes the gateway's `-32602`, whose message the SDK's server span records:
    the values of the prompt's arguments (the caller's and injected ones) are `[redacted]` in it.
    """
    arguments = None if isinstance(request, mt.CallToolRequest) else getattr(request.params, "arguments", None)
    return withhold(message, values_in(arguments)) if arguments else message


def innermost(error: BaseException) -> BaseException:
    """The first exception inside (possibly nested) groups: task groups wrap a failure in them."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe_failure(error: BaseException) -> str:
    """The innermost cause of a failure, as `Type: message` (an invalid answer: `invalid Model:
    where: what`, its first problem)."""
    error = innermost(error)
    if isinstance(error, ValidationError):
        first, *rest = error.errors(include_url=False, include_input=False)
        where = ".".join(str(part) for part in first["loc"])
        more = f" (and {len(rest)} more)" if rest else ""
        return f"invalid {error.title}: {where}: {first['msg']}{more}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
