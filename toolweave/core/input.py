"""Asking the client for input during a call: elicitation, sampling, roots.

A tool that needs something from the client (a user's answer, a model completion, the client's
roots) raises `InputRequired` with named requests built by `elicit`, `sample` and `list_roots`.
The call is then made again with the answers in `ctx.input_responses` (same keys, wire-shaped
dicts) and the state it chose in `ctx.request_state`. One way of writing it serves both eras:

- 2026-07-28 clients get an `InputRequiredResult` and retry the call themselves (SEP-2322);
- handshake-era clients are asked by the server (`elicitation/create`, `sampling/createMessage`,
  `roots/list` requests), and toolweave re-runs the tool with their answers.

Example:
    >>> from toolweave import Context, InputRequired
    >>> async def book(city: str, ctx: Context) -> str:
    ...     answer = ctx.input_responses.get("confirm")
    ...     if answer is None:
    ...         raise InputRequired({"confirm": elicit(f"Book {city}?", {"type": "object"})})
    ...     return "booked" if answer["action"] == "accept" else "cancelled"
    >>> import anyio
    >>> try:
    ...     anyio.run(book, "Lima", Context())
    ... except InputRequired as asked:
    ...     print(asked.requests["confirm"].method)
    elicitation/create
    >>> anyio.run(book, "Lima", Context(input_responses={"confirm": {"action": "accept"}}))  # asked again
    'booked'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class InputRequest:
    """One request for the client, in wire form: the JSON-RPC `method` and its `params`."""

    method: str
    params: Mapping[str, Any] = field(default_factory=dict)


def elicit(message: str, schema: Mapping[str, Any]) -> InputRequest:
    """Ask the user to fill in a form: `message`, and a flat JSON Schema object for the answer.

    The answer is `{"action": "accept" | "decline" | "cancel", "content": {...}}`.
    """
    return InputRequest("elicitation/create", {"mode": "form", "message": message, "requestedSchema": dict(schema)})


def sample(
    prompt: str | Sequence[Mapping[str, Any]], *, max_tokens: int, system_prompt: str | None = None
) -> InputRequest:
    """Ask the client's model for a completion of `prompt` (text, or wire `SamplingMessage`s).

    The answer is `{"role": "assistant", "content": {...}, "model": ..., "stopReason": ...}`.
    """
    messages = (
        [{"role": "user", "content": {"type": "text", "text": prompt}}] if isinstance(prompt, str) else list(prompt)
    )
    params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens}
    if system_prompt is not None:
        params["systemPrompt"] = system_prompt
    return InputRequest("sampling/createMessage", params)


def list_roots() -> InputRequest:
    """Ask the client for its roots; the answer is `{"roots": [{"uri": ..., "name": ...}, ...]}`."""
    return InputRequest("roots/list")
