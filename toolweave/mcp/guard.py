"""`guard`: the one place where a failure inside the MCP adapter becomes a safe wire error.

Handlers map what they know (unknown tool → -32602, a tool's failure → an `isError` result,
`MissingCapability` → -32021). Anything else that escapes a handler — a `tools/list`
middleware, a completion function, converting a result, a bug — would otherwise reach the wire
as the SDK sends it: in the handshake era `code: 0` with the exception text verbatim (which may
hold a URL with a secret), in the 2026 era a bare -32603, and a pydantic `ValidationError` from
any of them as an unlogged -32602 "Invalid request parameters". `guard`, the SDK middleware
around every inbound message, turns each into `-32603 Internal error (incident <id>)` in both
eras and logs the traceback once under that id (logger `toolweave.errors`). What passes through:
deliberate protocol errors (`MCPError`), the SDK refusing the client's request (a
`ValidationError` of one of the protocol's request models, or of the params of a method this
server adds: -32602) and the task's real cancellation.

Example:
    >>> import anyio
    >>> from toolweave import Server
    >>> from toolweave.middleware import Middleware
    >>> from toolweave.testing import connect
    >>> class Broken(Middleware):
    ...     async def on_list_tools(self, tools, ctx):
    ...         raise RuntimeError("https://user:secret@db.example is down")
    >>> async def listed() -> str:  # the adapter installs `guard` just inside the SDK's OpenTelemetry span
    ...     async with connect(Server("demo", middleware=[Broken()])) as client:
    ...         try:
    ...             await client.list_tools()
    ...         except MCPError as error:
    ...             return error.error.message
    >>> anyio.run(listed)  # doctest: +ELLIPSIS
    'Internal error (incident ...)'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp.types as mt
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.request_state import RequestStateBoundary
from mcp_types.methods import is_input_required
from pydantic import BaseModel, ValidationError

from toolweave.core.masking import incident_id, is_cancellation, logger

M = TypeVar("M", bound=BaseModel)


OWN_REQUEST_PARAMS: dict[str, type[BaseModel]] = {}
"""The params models of methods this server adds to the protocol (`tasks/*`), by name: a client's
invalid params for them are refused (-32602) like the protocol's own (see `own_request_params`)."""


def own_request_params(model: type[M]) -> type[M]:
    """Register `model` as the params of a method this server adds (a class decorator).

    Example:
        >>> @own_request_params
        ... class PingTwiceParams(mt.RequestParams):
        ...     times: int
        >>> try:
        ...     PingTwiceParams.model_validate({"times": "x"})
        ... except ValidationError as error:
        ...     refuses_the_request(error)
        True
    """
    OWN_REQUEST_PARAMS[model.__name__] = model
    return model


async def guard(ctx: ServerRequestContext[Any], call_next: Any, state: RequestStateBoundary | None = None) -> Any:
    """Run the rest of the chain; an unexpected failure becomes a masked -32603 with an incident id.

    With `state` (a method that may answer `input_required`), the SDK's `RequestStateBoundary`
    verifies a `requestState` the request carries and seals the one an `input_required` answer
    carries; a request with neither, nearly every one, does not pass through it (a layer costs
    ~3 µs a request).
    """
    try:
        if state is None:
            return await call_next(ctx)
        if ctx.params is not None and ctx.params.get("requestState") is not None:
            return await state(ctx, call_next)
        result = await call_next(ctx)
        return await state(ctx, _answered(result)) if is_input_required(result) else result
    except MCPError:
        raise
    except BaseException as error:
        if is_cancellation(error) or (isinstance(error, ValidationError) and refuses_the_request(error)):
            raise
        incident = incident_id(error)
        logger.error("%s failed (incident %s)", ctx.method, incident, exc_info=error, extra={"incident": incident})
        raise MCPError(mt.INTERNAL_ERROR, f"Internal error (incident {incident})") from None


def _answered(result: Any) -> Callable[[Any], Awaitable[Any]]:
    """A `call_next` that answers `result`, already computed."""

    async def answered(_: Any) -> Any:
        return result

    return answered


def refuses_the_request(error: ValidationError) -> bool:
    """Whether `error` is the SDK validating the client's request (a protocol request model), not
    a failure of the server's own code (a tool author's model, a result being built).

    Example:
        >>> try:
        ...     mt.CallToolRequestParams.model_validate({"name": 3})
        ... except ValidationError as error:
        ...     refuses_the_request(error)
        True
    """
    if error.title in OWN_REQUEST_PARAMS:
        return True
    model = getattr(mt, error.title, None)
    return (
        error.title.endswith(("Request", "RequestParams"))
        and isinstance(model, type)
        and issubclass(model, BaseModel)
    )
