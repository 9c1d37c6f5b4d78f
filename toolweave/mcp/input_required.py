"""What a tool (or prompt) needs from the client, on the wire, for both protocol eras.

`MissingCapability` is JSON-RPC `-32021` (`toolweave.mcp.errors`). `InputRequired`:

- 2026-07-28: the call answers an `InputRequiredResult` (its `requestState` sealed by the SDK's
  `RequestStateBoundary`); the client retries with `inputResponses` and `requestState`. The
  state always records which requests were asked (the SDK seals it and binds it to the call), so
  answers are accepted only for requests this server issued: `inputResponses` without a sealed
  state of ours, or answers to something that was not asked, are dropped (logged), and the call
  runs as on a first round.
- Handshake era: the server sends each request to the client itself (on the call's own stream),
  collects the answers and runs the tool again, at most `MAX_ROUNDS` times.

Example:
    >>> to_mcp_requests({"ok": elicit("Proceed?", {"type": "object"})})["ok"].method
    'elicitation/create'
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import mcp.types as mt
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter

from toolweave.core.context import Context, enter_context, exit_context
from toolweave.core.errors import InputRequired
from toolweave.core.input import InputRequest, elicit  # noqa: F401 (elicit: the doctest)
from toolweave.core.waiting import give_up

T = TypeVar("T")
logger = logging.getLogger("toolweave.mcp")
_ENVELOPE = "io.toolweave/asked"
MAX_ROUNDS = 10
"""How many times a handshake-era call may ask for input before it fails."""

_RESULTS: dict[str, type[BaseModel]] = {
    "elicitation/create": mt.ElicitResult,
    "sampling/createMessage": mt.CreateMessageResult,
    "roots/list": mt.ListRootsResult,
}


@functools.cache
def input_requests() -> TypeAdapter[Any]:
    """The adapter of the SDK's `InputRequest` union (built on first use, not at import: ~6 ms)."""
    return TypeAdapter(mt.InputRequest)


def to_mcp_requests(requests: Mapping[str, InputRequest]) -> dict[str, Any]:
    """The SDK's input request models, by name."""
    return {
        name: input_requests().validate_python({"method": request.method, "params": dict(request.params)})
        for name, request in requests.items()
    }


def to_mcp_result(needed: InputRequired) -> mt.InputRequiredResult:
    """The `InputRequiredResult` a 2026 client gets; its state records what was asked (sealed on the way out)."""
    envelope = json.dumps({_ENVELOPE: sorted(needed.requests), "state": needed.state})
    return mt.InputRequiredResult(input_requests=to_mcp_requests(needed.requests) or None, request_state=envelope)


def _answered_round(params: mt.InputResponseRequestParams) -> tuple[dict[str, Any], str | None]:
    """The answers and the tool's state of a 2026 retry, keeping only answers to what was asked."""
    responses = responses_from_mcp(params.input_responses)
    asked, state = _opened(params.request_state)
    unasked = sorted(name for name in responses if name not in asked)
    if unasked:
        logger.warning("dropped input responses this server did not ask for: %s", ", ".join(map(repr, unasked)))
    return {name: answer for name, answer in responses.items() if name in asked}, state


def _opened(request_state: str | None) -> tuple[frozenset[str], str | None]:
    """(the names asked, the tool's own state) from an unsealed state this server issued."""
    if request_state is None:
        return frozenset(), None
    try:
        envelope = json.loads(request_state)
    except ValueError:
        envelope = None
    if not isinstance(envelope, dict) or not isinstance(envelope.get(_ENVELOPE), list):
        return frozenset(), None
    state = envelope.get("state")
    return frozenset(str(name) for name in envelope[_ENVELOPE]), state if isinstance(state, str) else None


def _plain(model: BaseModel) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def responses_from_mcp(responses: Mapping[str, Any] | None) -> dict[str, Any]:
    """A retried call's `inputResponses`, as the wire-shaped dicts tools see."""
    return {name: _plain(answer) for name, answer in (responses or {}).items()}


async def ask_client(session: ServerSession, request_id: Any, requests: Mapping[str, InputRequest]) -> dict[str, Any]:
    """Send each request to a handshake-era client (on the call's stream) and collect its answers."""
    related = ServerMessageMetadata(related_request_id=request_id)
    answers: dict[str, Any] = {}
    for name, request in to_mcp_requests(requests).items():
        answer = await session.send_request(request, _RESULTS[request.method], metadata=related)
        answers[name] = _plain(answer)
    return answers


async def with_input(
    ctx: ServerRequestContext[Any],
    params: mt.InputResponseRequestParams,
    context: Context,
    attempt: Callable[[Context], Awaitable[T]],
) -> T | mt.InputRequiredResult:
    """Run `attempt(context)` (the ambient context set), answering its `InputRequired`s.

    `context` gets the request's `inputResponses` and `requestState`. A 2026 request answers an
    `InputRequiredResult`; a handshake-era one asks the client and runs `attempt` again.
    """
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and (params.input_responses or params.request_state):
        context.input_responses, context.request_state = _answered_round(params)
    for _ in range(MAX_ROUNDS):
        token = enter_context(context)
        try:
            return await attempt(context)
        except InputRequired as needed:
            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                return to_mcp_result(needed)
            try:
                answers = await ask_client(ctx.session, ctx.request_id, needed.requests)
            except BaseException:  # no answers, no next round: a task elsewhere waiting on them is given up
                await give_up(needed)
                raise
            context = dataclasses.replace(context, input_responses=answers, request_state=needed.state)
        finally:
            exit_context(token)
    raise MCPError(mt.INTERNAL_ERROR, f"{ctx.method} asked the client for input more than {MAX_ROUNDS} times")
