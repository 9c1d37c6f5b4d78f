"""`guard`: the one place where a failure inside the MCP adapter becomes a safe wire error.

Handlers map what they know (unknown tool → -32602, a tool's failure → an `isError` result,
`MissingCapability` → -32021). Anything else that escapes a handler — a `tools/list`
middleware, a completion function, converting a result, a bug — would otherwise reach the wire
as the SDK sends it: in the handshake era `code: 0` with the exception text verbatim (which may
hold a URL with a secret), in the 2026 era a bare -32603. `guard`, the SDK middleware around
every inbound message, turns it into `-32603 Internal error (incident <id>)` in both eras and
logs the traceback once under that id (logger `toolweave.errors`). Deliberate protocol errors
(`MCPError`), the SDK's own parameter validation and the task's real cancellation pass through.

Example:
    lowlevel.middleware.insert(1, guard)   # just inside the SDK's OpenTelemetry span
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
from mcp import MCPError
from mcp.server import ServerRequestContext
from pydantic import ValidationError

from toolweave.core.masking import incident_id, is_cancellation, logger


async def guard(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
    """Run the rest of the chain; an unexpected failure becomes a masked -32603 with an incident id."""
    try:
        return await call_next(ctx)
    except (MCPError, ValidationError):
        raise
    except BaseException as error:
        if is_cancellation(error):
            raise
        incident = incident_id(error)
        logger.error("%s failed (incident %s)", ctx.method, incident, exc_info=error, extra={"incident": incident})
        raise MCPError(mt.INTERNAL_ERROR, f"Internal error (incident {incident})") from None
