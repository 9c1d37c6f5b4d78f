"""A call an upstream does not answer at once: the input it asks for, the task it answers with.

A 2026-era upstream may answer `tools/call` (`CALL_ANSWER`) with a result, with a request for
input, or, told the gateway takes tasks, with a task:

- input it asks for (in the call, or in its task) is the call's `InputRequired`
  (`input_required`), whose `state` names the upstream and the tool and says where to resume:
  the upstream's own `requestState`, or its task. The call's next round (`resumed_from`) sends
  the client's answers back upstream: in the call's `inputResponses`, or with `tasks/update`;
- a task is polled to its result (`task_result`), each poll bounded like any request, the whole
  by the caller's deadline only; cancelling the call cancels the upstream's task; its status
  messages are the call's progress.

Example:
    >>> asked = input_required({"name": {"method": "elicitation/create"}}, "gh", "triage", state="s1")
    >>> asked.requests["name"].method, json.loads(asked.state)
    ('elicitation/create', {'io.toolweave/upstream': ['gh', 'triage'], 'state': 's1'})
    >>> from toolweave.core.context import Context
    >>> resumed_from(Context(request_state=asked.state), "gh", "triage")["state"]  # the next round
    's1'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import mcp.types as mt
from mcp import ClientSession, MCPError
from pydantic import Discriminator, Tag, TypeAdapter

from toolweave.core.context import Context
from toolweave.core.errors import InputRequired, UpstreamError, UpstreamFailed
from toolweave.core.input import InputRequest
from toolweave.core.waiting import WaitingInput
from toolweave.tasks.client import CreateTaskResult, Send, cancel_task, drive_task
from toolweave.tasks.record import progress_of


def _result_type(raw: Any) -> Any:
    return raw.get("resultType") if isinstance(raw, dict) else getattr(raw, "result_type", None)


CALL_ANSWER: TypeAdapter[mt.CallToolResult | mt.InputRequiredResult | CreateTaskResult] = TypeAdapter(
    Annotated[
        Annotated[mt.CallToolResult | mt.InputRequiredResult, Tag("core")] | Annotated[CreateTaskResult, Tag("task")],
        Discriminator(lambda raw: "task" if _result_type(raw) == "task" else "core"),
    ]
)
"""A `tools/call` answer: a result; from a 2026-era upstream, a request for input, or a task."""
NO_ANSWERS: Mapping[str, Any] = {}
_RESUME = "io.toolweave/upstream"
"""The key of the state a call that an upstream asked input for resumes from."""


def input_required(requests: Mapping[str, Mapping[str, Any]], label: str, tool: str, **resume: Any) -> InputRequired:
    """The client is asked what the upstream asks (wire requests by key); the next round resumes
    from `resume` (the upstream's `state`, or its `task`)."""
    asked = {key: InputRequest(wire["method"], wire.get("params") or {}) for key, wire in requests.items()}
    return InputRequired(asked, state=json.dumps({_RESUME: [label, tool], **resume}))


def resumed_from(ctx: Context, label: str, tool: str) -> dict[str, Any] | None:
    """What an earlier round of this call to `label`'s `tool` left to resume from, if anything."""
    if not ctx.request_state:
        return None
    try:
        state = json.loads(ctx.request_state)
    except ValueError:
        return None
    return state if isinstance(state, dict) and state.get(_RESUME) == [label, tool] else None


async def task_result(
    created: CreateTaskResult,
    send: Send,
    ctx: Context,
    *,
    label: str,
    tool: str,
    session: ClientSession,
    gone: Callable[[], bool] | None,
    wants_progress: bool,
    answered: Mapping[str, Any] = NO_ANSWERS,
) -> mt.CallToolResult:
    """Drive a task upstream `label` answered a call to `tool` with (2026-era upstreams that serve
    the tasks extension) to its result: polled with `tasks/get` over `send`, each request bounded
    like any other, the whole by the caller's deadline only; cancelling the call cancels the
    upstream's task; its status messages are the call's progress (when `wants_progress`: the
    caller's context can deliver it).
    Input the task asks for is asked of the gateway's client (`WaitingInput`, which cancels
    the task if the call is not resumed); the call's next round sends the answers with
    `tasks/update` and polls on (`answered`: their keys). Once `session`, the one the task runs
    on, is `gone` (when given: an upstream whose task ends with its session), a failed poll ends
    the call at once ("lost contact with upstream … while its task ran: … went away"); a poll
    the upstream refuses (it restarted without the task) ends it too, as a lost upstream."""
    server = f"upstream {label!r}"

    async def ask(task_id: str, requests: dict[str, dict[str, Any]]) -> None:
        asked = input_required(requests, label, tool, task=task_id)  # the task waits for the next round
        raise WaitingInput(asked.requests, state=asked.state, abandon=lambda: cancel_task(send, task_id, server))

    updates = 0

    async def on_status(message: str) -> None:  # the upstream task's news, as the call's progress
        nonlocal updates
        updates += 1
        progress = progress_of(message)  # (a toolweave upstream's progress, passed on as it came)
        await ctx.report_progress(*(progress or (updates, None, message)))

    try:
        return await drive_task(
            session,
            created,
            send=send,
            ask=ask,
            answered=set(answered),
            on_status=on_status if wants_progress else None,
            server=server,
            gone=gone,
        )
    except MCPError as error:  # the task failed, or was cancelled upstream
        raise UpstreamFailed(f"upstream {label!r} task: {error.error.message}") from None
    except UpstreamError as refused:  # a poll refused ("Task not found": restarted without it): it is lost
        if refused.code is None:
            raise
        message = f"lost contact with {server} while its task ran: it no longer knows the task ({refused})"
        raise UpstreamError(message, tool=refused.tool) from None
