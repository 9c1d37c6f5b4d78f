"""The one map from toolweave's errors to the JSON-RPC errors a client gets.

| error | JSON-RPC |
|---|---|
| `UnknownTool`, `UnknownPrompt`, `InvalidArguments` (a prompt's, a template's) | `-32602` with the message |
| `UnknownResource` | `-32602`, `data: {"uri": ...}` (SEP-2164, both eras, as the SDK's own server) |
| `MissingCapability` | `-32021`, `data: {"requiredCapabilities": ...}` |
| `UpstreamError` whose upstream refused the request as invalid | `-32602` naming the upstream (`data.uri` for a read) |
| any other `ToolError` (a failed prompt or resource: already masked) | `-32603` with its message |
| anything else | not mapped: raised on, so `guard` answers `-32603 Internal error (incident <id>)` and logs it |

A tool's failures never get here: they are `isError` results.

Example:
    >>> from toolweave.core.errors import UnknownResource
    >>> error = protocol_error(UnknownResource("file:///nope"))
    >>> error.error.code, error.error.data
    (-32602, {'uri': 'file:///nope'})
"""

from __future__ import annotations

import mcp.types as mt
from mcp import MCPError

from toolweave.core.errors import (
    InvalidArguments,
    MissingCapability,
    ToolError,
    ToolweaveError,
    UnknownPrompt,
    UnknownResource,
    UnknownTool,
    UpstreamError,
)
from toolweave.core.uri_template import check_length


def protocol_error(error: ToolweaveError, uri: str | None = None) -> MCPError:
    """The JSON-RPC error for `error` (of a request for `uri`, when a resource was read).

    Raises:
        ToolweaveError: `error` itself, when it is not one the client may read (see the table).
    """
    if isinstance(error, UnknownResource):
        return MCPError(mt.INVALID_PARAMS, str(error), data={"uri": error.uri})
    if isinstance(error, UnknownTool | UnknownPrompt | InvalidArguments):
        return MCPError(mt.INVALID_PARAMS, str(error))
    if isinstance(error, MissingCapability):
        data = {"requiredCapabilities": error.capabilities}
        return MCPError(mt.MISSING_REQUIRED_CLIENT_CAPABILITY, str(error), data)
    if isinstance(error, UpstreamError) and error.code == mt.INVALID_PARAMS:
        return MCPError(mt.INVALID_PARAMS, str(error), data={"uri": uri} if uri is not None else None)
    if isinstance(error, ToolError):
        return MCPError(mt.INTERNAL_ERROR, str(error))
    raise error


def requested_uri(uri: object) -> str:
    """The resource URI a request names (`resources/subscribe`, `completion/complete`...), or the
    -32602 error naming the cap when it is longer than `MAX_URI_LENGTH` (`check_length`)."""
    try:
        return check_length(str(uri))
    except InvalidArguments as error:
        raise protocol_error(error) from None
