"""Tasks with the rest of toolweave: transforms, middleware, mounts, access rules, HTTP callers."""

from __future__ import annotations

from typing import Any

import mcp
import pytest
from mcp import MCPError

from tests.serving import serving
from tests.tasks.servers import Gate, authenticate, create, get, http_client, task_client, tasks_server, until
from toolweave import Context, Server
from toolweave.middleware import Timeout
from toolweave.tasks import RunAsTask, TasksExtension
from toolweave.testing import RecordingMiddleware
from toolweave.transforms import Authorize


def plain_server() -> Server:
    server = Server("plain")

    @server.tool(tags={"slow"})
    async def report(day: str) -> str:
        return f"report for {day}"

    return server


async def test_the_run_as_task_transform_makes_a_tool_task_capable() -> None:
    server = plain_server()
    server.add_transform(RunAsTask("optional"), tags={"slow"})
    async with task_client(server) as client:
        created = await create(client, "report", {"day": "monday"})
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and done.result["content"][0]["text"] == "report for monday"
    assert server.catalog.get("report").tool.transforms == (RunAsTask("optional"),)


def test_task_support_must_be_one_of_the_three() -> None:
    with pytest.raises(ValueError, match="support must be one of"):
        RunAsTask("always")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="task_support must be one of none, optional, required, not 'yes'"):
        Server("s").tool(task_support="yes", name="t")(lambda: None)


async def test_middleware_wraps_the_work_of_a_task() -> None:
    recorder = RecordingMiddleware("outer")
    server = tasks_server()
    server.add_middleware(recorder)
    async with task_client(server) as client:
        created = await create(client, "export", {"table": "users"})
        await until(client, created.task_id, "completed")
    assert [call.tool.name for call in recorder.calls] == ["export"]
    assert recorder.log == ["enter outer", "exit outer"]


async def test_a_timeout_applies_to_the_work_not_to_the_poll() -> None:
    gate = Gate()
    server = tasks_server(gate)
    server.add_middleware(Timeout(0.2))
    async with task_client(server) as client:
        created = await create(client, "build", {"ref": "main"})
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and done.result["isError"] is True
    assert "timed out after 0.2s" in done.result["content"][0]["text"] and gate.cleaned_up.is_set()


async def test_a_mounted_childs_task_capable_tool_is_a_task_at_the_parent() -> None:
    gate = Gate()
    gate.release.set()
    parent = Server("gateway")
    parent.mount(tasks_server(gate), prefix="ci")
    async with task_client(parent) as client:
        created = await create(client, "ci_build", {"ref": "main"})
        done = await until(client, created.task_id, "completed")
        required = await create(client, "ci_export", {"table": "t"})
    assert done.result is not None and done.result["content"][0]["text"] == "built main"
    assert parent.catalog.get("ci_export").tool.task_support == "required" and required.status == "working"


async def test_a_tool_the_caller_may_not_use_is_unknown_not_a_task() -> None:
    server = tasks_server()
    server.add_transform(Authorize(scopes=["ops"]), tools="export")
    async with task_client(server) as client:
        with pytest.raises(MCPError) as raised:
            await create(client, "export", {"table": "users"})
    assert raised.value.error.code == -32602 and "export" in raised.value.error.message


@pytest.mark.parametrize("mode", ["legacy", None], ids=["2025", "2026"])
async def test_a_task_only_tool_the_caller_may_not_use_is_unknown_to_a_client_without_tasks(mode: str | None) -> None:
    """It answered -32021 "Tool 'export' runs only as a task" (naming a tool the caller may not
    know of) to a client that did not declare the extension, where a missing tool is -32602."""
    server = tasks_server()
    server.add_transform(Authorize(scopes=["ops"]), tools="export")
    async with mcp.Client(server.as_mcp(), **({"mode": mode} if mode else {})) as client:
        answers = []
        for name in ("export", "no_such_tool"):
            with pytest.raises(MCPError) as raised:
                await client.call_tool(name, {"table": "users"})
            answers.append((raised.value.error.code, raised.value.error.message.replace(name, "<name>")))
    assert answers[0] == answers[1] == (-32602, "Unknown tool: <name>")


async def test_a_task_of_a_server_that_stops_ends_failed() -> None:
    gate = Gate()
    server = tasks_server(gate)
    from toolweave.tasks.serving import tasks_settings

    store = tasks_settings(server).store
    async with task_client(server) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
    record = await store.get(created.task_id)
    assert record is not None and record.status == "failed" and gate.cleaned_up.is_set()
    assert record.error == {"code": -32603, "message": "The server stopped before the task finished"}


# -- over HTTP ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
async def test_over_http_a_task_runs_to_its_result(stateless: bool) -> None:
    gate = Gate()
    gate.release.set()
    async with (
        serving(tasks_server(gate).http_app(stateless=stateless)) as url,
        mcp.Client(f"{url}/mcp", extensions=[TasksExtension()]) as client,
    ):
        created = await create(client, "build", {"ref": "main"})
        done = await until(client, created.task_id, "completed")
        direct = await client.call_tool("export", {"table": "users"})
    assert done.result is not None and done.result["content"][0]["text"] == "built main"
    assert direct.structured_content == {"table": "users", "rows": 3}


async def test_over_http_another_caller_cannot_see_or_cancel_a_task() -> None:
    gate = Gate()
    async with serving(tasks_server(gate).http_app(authenticate=authenticate)) as url:
        alice_http, alice = http_client(url, "alice")
        mallory_http, mallory = http_client(url, "mallory")
        async with alice_http, mallory_http, alice, mallory:
            created = await create(alice, "build", {"ref": "main"})
            for attempt in (get, _cancel):
                with pytest.raises(MCPError) as raised:
                    await attempt(mallory, created.task_id)
                assert raised.value.error.message == "Failed to retrieve task: Task not found"
            state = await get(alice, created.task_id)
            gate.release.set()
            await until(alice, created.task_id, "completed")
    assert state.status == "working"


async def _cancel(client: Any, task_id: str) -> None:
    from tests.tasks.servers import cancel

    await cancel(client, task_id)


async def test_task_ids_are_unguessable() -> None:
    async with task_client(tasks_server()) as client:
        ids = [(await create(client, "export", {"table": str(n)})).task_id for n in range(20)]
    assert len(set(ids)) == 20 and all(len(task_id) >= 43 for task_id in ids)


async def test_tools_in_context_see_the_request_that_created_the_task() -> None:
    server = Server("who")

    @server.tool(task_support="optional")
    def whoami(ctx: Context) -> str:
        return ctx.auth.subject if ctx.auth else "anonymous"

    async with serving(server.http_app(authenticate=authenticate)) as url:
        http, client = http_client(url, "alice")
        async with http, client:
            result = await client.call_tool("whoami", {})
    assert result.content[0].text == "alice"


async def test_a_call_through_search_tools_call_tool_runs_as_a_task() -> None:
    from toolweave.transforms import SearchTools

    gate = Gate()
    server = tasks_server(gate)
    server.add_transform(SearchTools())
    async with task_client(server) as client:
        created = await create(client, "call_tool", {"name": "build", "arguments": {"ref": "main"}})
        await gate.entered.wait()
        assert created.status == "working"
        gate.release.set()
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and done.result["content"][0]["text"] == "built main"


async def test_call_tool_takes_no_tasks_when_no_tool_behind_it_does() -> None:
    from toolweave.transforms import SearchTools

    server = plain_server()
    server.add_transform(SearchTools())
    assert server.catalog.get("call_tool").tool.task_support == "none"
