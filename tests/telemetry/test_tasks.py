"""A call answered with a task is observed until its work ends: counted once, with its work's
outcome and duration; its work runs in a span `task <tool>` under the request's span, so the
mounts and upstreams the work goes through are in the request's trace."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp.types as mt
from opentelemetry.trace import SpanKind, StatusCode

from tests.tasks.servers import Gate, cancel, create, task_client, tasks_server, until
from tests.telemetry.conftest import Metrics, Spans
from tests.telemetry.test_spans import child_of, hex_id, traced_upstream, upstream_spans
from toolweave import Server
from toolweave.middleware import Timeout
from toolweave.tasks import RunAsTask, configure_tasks

ACTIVE = "toolweave.tool.active"


def calls(recorded: Metrics, tool: str, outcome: str) -> int:
    point = {"gen_ai.tool.name": tool, "toolweave.origin": "jobs", "toolweave.outcome": outcome}
    return int(recorded.value("toolweave.tool.calls", **point))


def gateway(gate: Gate) -> Server:
    server = Server("gateway")
    server.mount(tasks_server(gate), prefix="jobs")
    return server


async def test_a_task_call_is_counted_once_when_its_work_ends_with_the_works_outcome(recorded: Metrics) -> None:
    gate = Gate()
    async with task_client(gateway(gate)) as client:
        building = await create(client, "jobs_build", {"ref": "main"})
        await gate.entered.wait()
        in_flight = recorded.value(ACTIVE, **{"gen_ai.tool.name": "jobs_build", "toolweave.origin": "jobs"})
        counted_while_working = calls(recorded, "jobs_build", "ok")
        gate.release.set()
        await until(client, building.task_id, "completed")
        refused = await create(client, "jobs_refuse", {"reason": "no"})
        await until(client, refused.task_id, "completed")
        crashed = await create(client, "jobs_crash", {})
        await until(client, crashed.task_id, "completed")

    assert (in_flight, counted_while_working) == (1, 0)
    assert calls(recorded, "jobs_build", "ok") == 1
    assert recorded.value(ACTIVE, **{"gen_ai.tool.name": "jobs_build", "toolweave.origin": "jobs"}) == 0
    assert calls(recorded, "jobs_refuse", "tool_error") == 1 and calls(recorded, "jobs_refuse", "ok") == 0
    assert calls(recorded, "jobs_crash", "error") == 1 and calls(recorded, "jobs_crash", "ok") == 0


async def test_a_cancelled_task_is_counted_cancelled(recorded: Metrics) -> None:
    gate = Gate()
    async with task_client(gateway(gate)) as client:
        created = await create(client, "jobs_build", {"ref": "main"})
        await gate.entered.wait()
        await cancel(client, created.task_id)
        await until(client, created.task_id, "cancelled")
        with anyio.fail_after(5):
            await gate.cleaned_up.wait()

    assert calls(recorded, "jobs_build", "cancelled") == 1 and calls(recorded, "jobs_build", "ok") == 0


async def test_a_tasks_work_is_a_span_under_the_request_that_created_it(spans: Spans) -> None:
    gate = Gate()
    gate.release.set()
    async with task_client(gateway(gate)) as client:
        created = await create(client, "jobs_refuse", {"reason": "no"})
        await until(client, created.task_id, "completed")

    request, work = spans.named("tools/call jobs_refuse"), spans.named("task jobs_refuse")
    mount = spans.named("mount jobs")
    assert request.kind is SpanKind.SERVER and work.kind is SpanKind.INTERNAL
    assert child_of(work, request) and child_of(mount, work)
    assert request.attributes is not None and request.attributes["toolweave.outcome"] == "task"
    assert work.attributes is not None
    assert work.attributes["toolweave.outcome"] == "tool_error" and work.attributes["gen_ai.tool.name"] == "jobs_refuse"
    assert work.attributes["toolweave.origin"] == "jobs" and work.attributes["toolweave.tool.original_name"] == "refuse"
    assert work.status.status_code is StatusCode.ERROR
    assert work.end_time is not None and request.end_time is not None and work.end_time > request.end_time


async def test_a_tasks_work_reaches_a_remote_upstream_in_the_same_trace(spans: Spans, tmp_path: Path) -> None:
    spans_file = tmp_path / "upstream-spans.jsonl"
    server = Server("gateway")
    server.mount(traced_upstream(spans_file), prefix="up")
    server.add_transform(RunAsTask("optional"))
    async with task_client(server) as client:
        created = await create(client, "up_echo", {"text": "hi"})
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and not done.result.get("isError")

    request, work = spans.named("tools/call up_echo"), spans.named("task up_echo")
    upstream = spans.named("tools/call echo")
    assert child_of(work, request) and upstream.kind is SpanKind.CLIENT
    assert upstream.context.trace_id == request.context.trace_id
    remote = await upstream_spans(spans_file, "tools/call echo")
    remote_served = next(span for span in remote if span["name"] == "tools/call echo")
    assert remote_served["context"]["trace_id"] == hex_id(request.context.trace_id, 32)


async def test_a_call_answered_plainly_within_answer_within_is_counted_once(recorded: Metrics) -> None:
    server = gateway(Gate())
    configure_tasks(server, answer_within=2.0)
    async with task_client(server) as client:
        result = await client.session.call_tool("jobs_export", {"table": "users"}, allow_claimed=True)
        refused = await client.session.call_tool("jobs_refuse", {"reason": "no"}, allow_claimed=True)
    assert isinstance(result, mt.CallToolResult) and isinstance(refused, mt.CallToolResult) and refused.is_error
    assert calls(recorded, "jobs_export", "ok") == 1
    assert calls(recorded, "jobs_refuse", "tool_error") == 1 and calls(recorded, "jobs_refuse", "ok") == 0
    assert recorded.value(ACTIVE, **{"gen_ai.tool.name": "jobs_export", "toolweave.origin": "jobs"}) == 0


async def test_a_mounted_servers_timeout_in_a_tasks_work_is_counted_under_the_name_the_client_called(
    recorded: Metrics,
) -> None:
    server = Server("gateway")
    server.mount(tasks_server(Gate(), middleware=[Timeout(default=0.05, tools="build")]), prefix="jobs")
    async with task_client(server) as client:
        created = await create(client, "jobs_build", {"ref": "main"})
        await until(client, created.task_id, "completed")
    assert recorded.value("toolweave.tool.timeouts", **{"gen_ai.tool.name": "jobs_build"}) == 1
    assert recorded.value("toolweave.tool.timeouts", **{"gen_ai.tool.name": "build"}) == 0
    assert calls(recorded, "jobs_build", "timeout") == 1
