"""Tasks through a remote upstream: a toolweave server on stdio whose tool is task-capable.

An upstream that lists tools with task support is spoken to in the 2026-07-28 era when it speaks
it. A handshake-era upstream (2025-11-25) cannot answer with a task: the gateway calls its tool as
a plain call (inside a task of its own, when its client asked for one). A 2026-era upstream is told
the gateway takes tasks; the call it answers with a task is polled to its end behind the
gateway's call, and cancelled with it. Input such an upstream asks for, in a plain call or in its
task, is asked of the gateway's client, and the answers go back to the upstream.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import anyio
import mcp
import mcp.types as mt
import pytest
from mcp import MCPError

from tests.conftest import subprocess_env
from tests.tasks.servers import cancel, create, get, task_client, until
from toolweave import Context, Server
from toolweave.config import build
from toolweave.config.models import Config
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.tasks import configure_tasks

UPSTREAM = Path(__file__).parent / "upstreams" / "task_upstream.py"


def gateway(*args: str, **options: object) -> Server:
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAM), *args], env=subprocess_env(), **options)  # type: ignore[arg-type]
    server = Server("gateway")
    server.mount(remote, prefix="up")
    return server


def era(server: Server) -> str | None:
    remote = server.mounts[0].child
    assert isinstance(remote, RemoteServer)
    return remote.era


async def test_an_upstream_tool_keeps_its_task_support_at_the_gateway() -> None:
    server = gateway()
    async with task_client(server) as client:
        created = await create(client, "up_deploy", {"env": "staging"})
        done = await until(client, created.task_id, "completed")
        supports = {name: server.catalog.get(name).tool.task_support for name in ("up_deploy", "up_pid")}
    assert supports == {"up_deploy": "optional", "up_pid": "none"}
    assert done.result is not None and done.result["content"][0]["text"] == "deployed to staging"


async def test_an_upstream_killed_mid_task_fails_the_task_with_its_error() -> None:
    server = gateway("handshake", timeout=10, backoff=Backoff(initial=30))  # one held request (2026: below)
    async with task_client(server) as client:
        pid = int((await client.call_tool("up_pid", {})).content[0].text)
        created = await create(client, "up_deploy", {"env": "prod", "seconds": 30})
        await anyio.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(10):
            done = await until(client, created.task_id, "completed", "failed")
    assert done.status == "failed" and done.result is None and done.error is not None
    assert done.error["code"] == mt.INTERNAL_ERROR and "upstream 'up' went away" in done.error["message"]


async def test_an_upstream_listing_task_support_is_spoken_to_in_the_2026_era_where_it_serves_tasks() -> None:
    """It takes the handshake too, where its `required` tool refused every call (`-32021`, masked)
    and input its tools asked for could not reach the gateway's client."""
    server = gateway()
    async with task_client(server, elicitation_callback=answer_ada) as client:
        exported = await client.call_tool("up_export", {"table": "t"})
        approved = await client.call_tool("up_approve_now", {})
        spoken = era(server)
    assert spoken == "2026"
    assert not exported.is_error and exported.content[0].text == "exported t"  # type: ignore[union-attr]
    assert not approved.is_error and approved.content[0].text == "approved by Ada (asked)"  # type: ignore[union-attr]


async def test_what_a_handshake_upstream_cannot_serve_through_the_gateway_says_why_unmasked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An upstream that refuses `server/discover` stays on the handshake: its `required` tool's
    `-32021`, and the input its tools ask for, are clear errors naming it (were masked incidents)."""
    server = gateway("handshake")
    async with task_client(server, elicitation_callback=answer_ada) as client:
        exported = await client.call_tool("up_export", {"table": "t"})
        approved = await client.call_tool("up_approve_now", {})
        spoken = era(server)
    assert spoken == "2025"
    assert "server/discover refused" in caplog.text
    assert exported.is_error and approved.is_error
    refused = exported.content[0].text  # type: ignore[union-attr]
    assert refused.startswith("upstream 'up' refused the call to 'up_export': it needs a client capability")
    assert "2025 handshake" in refused and "runs only as a task" in refused
    asked = approved.content[0].text  # type: ignore[union-attr]
    assert asked.startswith("upstream 'up' asked for input (elicitation/create) during the call to 'up_approve_now'")
    assert "only from an upstream spoken to in the 2026-07-28 era" in asked


async def test_a_long_running_upstream_tool_outlasts_the_remote_timeout_in_both_eras() -> None:
    # each request to the upstream must answer within 1 s: a 2026 upstream answers the 2-second
    # call with a task whose polls each answer at once; on a handshake session, where it cannot,
    # the call of a task-capable tool is one request bounded by the caller's deadline only
    modern, legacy = gateway("modern", timeout=1), gateway("handshake", timeout=1)
    async with modern, legacy:
        polled = await modern.call_tool("up_deploy", {"env": "prod", "seconds": 2})
        held = await legacy.call_tool("up_deploy", {"env": "prod", "seconds": 2})
        plain = await legacy.call_tool("up_nap", {"seconds": 2})
        bounded = await legacy.call_tool(
            "up_deploy", {"env": "prod", "seconds": 2}, ctx=Context(deadline=anyio.current_time() + 1)
        )
        eras = era(modern), era(legacy)
    assert eras == ("2026", "2025")
    assert not polled.is_error and polled.text == "deployed to prod"
    assert not held.is_error and held.text == "deployed to prod"
    assert plain.is_error and "timed out after 1s" in plain.text  # a tool without task support: the remote's timeout
    assert bounded.is_error and "timed out" in bounded.text  # the caller's deadline still holds


@pytest.mark.parametrize("args", [["handshake"], ["modern"]], ids=["handshake upstream", "2026 upstream"])
async def test_a_config_timeout_bounds_each_request_as_the_python_remote_does(args: list[str]) -> None:
    """A config `timeout:` is the remote's own: a call of a task-capable tool outlasts it (it was a
    `Timeout` around every tool of the source, which ended the call, task or not, at `timeout`)."""
    entry = {
        "command": sys.executable,
        "args": [str(UPSTREAM), *args],
        "env": subprocess_env(),
        "timeout": 1,
        "connect_timeout": 30,
    }
    server = build(Config.model_validate({"mcpServers": {"up": {**entry, "prefix": "up"}}})).server
    async with task_client(server) as client:
        created = await create(client, "up_deploy", {"env": "prod", "seconds": 2})
        task = await until(client, created.task_id, "completed", "failed")
        plain = await server.call_tool("up_deploy", {"env": "prod", "seconds": 2})
        quick = await server.call_tool("up_nap", {"seconds": 2})
    assert task.status == "completed" and task.result is not None
    assert task.result["content"][0]["text"] == "deployed to prod"
    assert not plain.is_error and plain.text == "deployed to prod"
    assert quick.is_error and "timed out after 1s" in quick.text  # a tool without task support: the bound holds


async def test_cancelling_the_call_cancels_the_upstream_task(tmp_path: Path) -> None:
    marker = tmp_path / "cleaned-up"
    server = gateway("modern")
    async with server:
        with anyio.move_on_after(1):
            await server.call_tool("up_deploy", {"env": "prod", "seconds": 30, "marker": str(marker)})
        with anyio.fail_after(5):  # the upstream's task was cancelled, and its `finally` ran
            while not (marker.exists() and marker.read_text()):  # noqa: ASYNC110 - (made empty, then written)
                await anyio.sleep(0.05)
    assert marker.read_text() == "cleaned up"


async def test_a_gateway_task_runs_the_upstream_task_to_its_end() -> None:
    server = gateway("modern", timeout=1)
    async with task_client(server) as client:
        created = await create(client, "up_deploy", {"env": "staging", "seconds": 1.5})
        done = await until(client, created.task_id, "completed", "failed")
    assert done.status == "completed" and done.result is not None and not done.result["isError"]
    assert done.result["content"][0]["text"] == "deployed to staging"


@pytest.mark.parametrize("restart", [0.1, 30.0], ids=["restarted at once", "not restarted yet"])
async def test_an_upstream_killed_while_its_task_runs_fails_the_call_at_once(restart: float) -> None:
    """The session the task ran on is gone: its polls are not tried again for `patience` (60 s),
    whether the upstream is down ("not connected") or back without the task ("Task not found")."""
    server = gateway("modern", timeout=10, backoff=Backoff(initial=restart))
    async with server:
        pid = int((await server.call_tool("up_pid", {})).text)
        results = []

        async def call() -> None:
            results.append(await server.call_tool("up_deploy", {"env": "prod", "seconds": 30}))

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call)
                await anyio.sleep(0.5)
                os.kill(pid, signal.SIGKILL)
    assert results[0].is_error
    assert results[0].text.startswith("lost contact with upstream 'up' while its task ran: upstream 'up' went away")


async def statuses(server: Server) -> list[str]:
    """The latest status of each task the gateway's upstream ran."""
    return json.loads((await server.call_tool("up_statuses", {})).text)  # type: ignore[no-any-return]


async def test_cancelling_a_gateway_task_waiting_for_input_cancels_the_upstream_task() -> None:
    server = gateway("modern")
    async with task_client(server) as client:
        created = await create(client, "up_approve", {})
        await until(client, created.task_id, "input_required")
        waiting = await statuses(server)
        await cancel(client, created.task_id)
        done = await until(client, created.task_id, "cancelled", "failed", "completed")
        with anyio.fail_after(5):
            while (ended := await statuses(server)) == waiting:  # noqa: ASYNC110
                await anyio.sleep(0.05)
    assert waiting == ["input_required"] and done.status == "cancelled" and ended == ["cancelled"]


async def test_a_gateway_task_whose_input_times_out_cancels_the_upstream_task() -> None:
    server = gateway("modern")
    configure_tasks(server, input_timeout=0.5)
    async with task_client(server) as client:
        created = await create(client, "up_approve", {})
        done = await until(client, created.task_id, "cancelled", "failed", "completed")
        with anyio.fail_after(5):
            while (ended := await statuses(server)) == ["input_required"]:  # noqa: ASYNC110
                await anyio.sleep(0.05)
    assert done.status == "failed" and done.error is not None and "waited 0.5s for input" in done.error["message"]
    assert ended == ["cancelled"]


async def refuse_to_answer(context: object, params: mt.ElicitRequestParams) -> mt.ErrorData:
    return mt.ErrorData(code=mt.INTERNAL_ERROR, message="no one is at the keyboard")


async def test_a_handshake_clients_failed_elicitation_cancels_the_upstream_task() -> None:
    """The gateway asks a handshake client for the input its upstream's task waits on; the client
    cannot answer: the call fails, and the upstream's task is cancelled, not left waiting an hour."""
    server = gateway("modern")
    async with mcp.Client(server.as_mcp(), mode="legacy", elicitation_callback=refuse_to_answer) as client:  # type: ignore[arg-type]
        with pytest.raises(MCPError):
            await client.call_tool("up_approve", {})
        with anyio.fail_after(5):
            while (ended := await statuses(server)) == ["input_required"]:  # noqa: ASYNC110
                await anyio.sleep(0.05)
    assert ended == ["cancelled"]


async def answer_ada(context: object, params: mt.ElicitRequestParams) -> mt.ElicitResult:
    return mt.ElicitResult(action="accept", content={"name": "Ada"})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("tool", ["up_approve", "up_approve_now"], ids=["in its task", "in a plain call"])
async def test_input_a_2026_upstream_asks_for_is_asked_of_the_gateways_client(mode: str, tool: str) -> None:
    server = gateway("modern")
    async with mcp.Client(server.as_mcp(), mode=mode, elicitation_callback=answer_ada) as client:  # type: ignore[arg-type]
        result = await client.call_tool(tool, {})
    assert not result.is_error and result.content[0].text == "approved by Ada (asked)"  # type: ignore[union-attr]


async def test_a_gateway_task_forwards_the_input_its_upstream_task_asks_for() -> None:
    server = gateway("modern")
    async with task_client(server, elicitation_callback=answer_ada) as client:
        result = await client.call_tool("up_approve", {})
    assert result.content[0].text == "approved by Ada (asked)"  # type: ignore[union-attr]


async def test_an_upstream_tasks_status_messages_reach_the_gateways_task() -> None:
    server = gateway("modern")
    async with task_client(server) as client:
        created = await create(client, "up_build", {"seconds": 1.5})
        with anyio.fail_after(5):  # the upstream's "1/2: compiling", as the gateway task's progress
            while (status := (await get(client, created.task_id)).status_message) is None:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        done = await until(client, created.task_id, "completed", "failed")
    assert status == "1/2: compiling"  # as it came (was counted again: "1: 1/2: compiling")
    assert done.status == "completed" and done.result is not None and done.result["content"][0]["text"] == "built"


async def test_an_upstream_tasks_progress_reaches_a_plain_call_as_it_came() -> None:
    server = gateway("modern")
    heard: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        heard.append((value, total, message))

    async with mcp.Client(server.as_mcp()) as client:  # (a plain call: the client takes no tasks)
        result = await client.call_tool("up_build", {"seconds": 1}, progress_callback=progress)
    assert result.content[0].text == "built"  # type: ignore[union-attr]
    assert heard == [(1, 2, "compiling")]  # was (1, None, "1/2: compiling")
