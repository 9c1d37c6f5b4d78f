"""Serving tasks: a task-capable tool's call from a client that accepts tasks is a task."""

from __future__ import annotations

import itertools
from typing import Any

import anyio
import mcp
import mcp.types as mt
import pytest
from mcp import MCPError
from mcp.client.sse import sse_client

from tests.serving import serving
from tests.tasks.servers import NAME_FORM, Gate, cancel, create, get, task_client, tasks_server, until, update
from toolweave.tasks import EXTENSION, MemoryTaskStore, configure_tasks
from toolweave.tasks.client import FIRST_POLL, CreateTaskResult, TasksExtension, TaskState, drive_task
from toolweave.tasks.record import TaskRecord


async def test_a_call_is_answered_with_a_working_task_while_the_tool_still_runs() -> None:
    gate = Gate()
    async with task_client(tasks_server(gate)) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        assert (created.status, gate.release.is_set()) == ("working", False)
        assert created.ttl_ms == 3_600_000 and created.poll_interval_ms == 500
        gate.release.set()
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and done.result["content"][0]["text"] == "built main"


async def test_progress_becomes_the_status_message() -> None:
    gate = Gate()
    async with task_client(tasks_server(gate)) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        with anyio.fail_after(5):
            while (state := await get(client, created.task_id)).status_message is None:  # noqa: ASYNC110 (polling is the point)
                await anyio.sleep(0.01)
        gate.release.set()
    assert (state.status, state.status_message) == ("working", "1/3: compiling")


@pytest.mark.parametrize(("end", "message"), [("completed", None), ("cancelled", "The client cancelled the task")])
async def test_an_ended_tasks_status_message_says_how_it_ended_not_its_last_progress(
    end: str, message: str | None
) -> None:
    gate = Gate()
    async with task_client(tasks_server(gate)) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        await anyio.sleep(0.05)  # its "1/3: compiling" recorded
        if end == "cancelled":
            await cancel(client, created.task_id)
        else:
            gate.release.set()
        state = await until(client, created.task_id, end)
    assert state.status_message == message


async def test_the_client_extension_drives_a_task_to_its_result() -> None:
    gate = Gate()
    gate.release.set()
    async with task_client(tasks_server(gate)) as client:
        result = await client.call_tool("build", {"ref": "v1"})
    assert result.is_error is False and result.content[0].text == "built v1"


async def test_a_quick_task_is_read_back_long_before_the_servers_poll_interval() -> None:
    """The first poll goes out after `FIRST_POLL` and each wait doubles up to the interval the
    server asks (5 s here): a call answered with a task at once took the whole interval."""
    server = tasks_server()
    configure_tasks(server, poll_interval=5.0)
    started = anyio.current_time()
    async with task_client(server) as client:
        result = await client.call_tool("export", {"table": "users"})
    assert result.structured_content == {"table": "users", "rows": 3}
    assert anyio.current_time() - started < 2.5  # (a generous bound: it took 5 s)


async def test_a_server_suggesting_a_negative_poll_interval_is_not_polled_without_a_pause() -> None:
    polled: list[float] = []

    async def send(request: Any, result_type: Any) -> Any:
        polled.append(anyio.current_time())
        status = "completed" if len(polled) == 4 else "working"
        return TaskState(task_id="t", status=status, poll_interval_ms=-1000, result={"content": []})

    created = CreateTaskResult(task_id="t", status="working", poll_interval_ms=-1000)
    await drive_task(None, created, send=send)  # type: ignore[arg-type]
    gaps = [later - earlier for earlier, later in itertools.pairwise(polled)]
    assert len(polled) == 4 and min(gaps) >= FIRST_POLL  # (each poll went out at once)


async def test_a_task_asking_for_input_is_answered_through_tasks_update() -> None:
    async with task_client(tasks_server()) as client:
        created = await create(client, "approve", {})
        asking = await until(client, created.task_id, "input_required")
        assert asking.input_requests is not None
        assert asking.input_requests["who"]["method"] == "elicitation/create"
        await update(client, created.task_id, {"who": {"action": "accept", "content": {"name": "Ada"}}})
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and done.result["content"][0]["text"] == "approved by Ada (asked)"


async def test_answers_to_requests_that_were_not_asked_are_ignored() -> None:
    async with task_client(tasks_server()) as client:
        created = await create(client, "approve", {})
        await until(client, created.task_id, "input_required")
        await update(client, created.task_id, {"whom": {"action": "accept", "content": {"name": "Eve"}}})
        await anyio.sleep(0.05)
        state = await get(client, created.task_id)
    assert state.status == "input_required" and list(state.input_requests or {}) == ["who"]


async def test_the_client_extension_answers_input_with_its_own_callbacks() -> None:
    async def on_elicit(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="accept", content={"name": "Grace"})

    async with task_client(tasks_server(), elicitation_callback=on_elicit) as client:
        result = await client.call_tool("approve", {})
    assert result.content[0].text == "approved by Grace (asked)"


async def test_a_cancelled_task_ends_cancelled_and_its_finally_runs() -> None:
    gate = Gate()
    async with task_client(tasks_server(gate)) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        await cancel(client, created.task_id)
        state = await until(client, created.task_id, "cancelled", "completed", "failed")
    assert state.status == "cancelled" and gate.cleaned_up.is_set() and state.result is None


async def test_cancelling_an_ended_task_leaves_it_as_it_ended() -> None:
    async with task_client(tasks_server()) as client:
        created = await create(client, "export", {"table": "users"})
        await until(client, created.task_id, "completed")
        await cancel(client, created.task_id)
        state = await get(client, created.task_id)
    assert state.status == "completed"


async def test_giving_up_on_a_call_cancels_its_task() -> None:
    gate = Gate()
    async with task_client(tasks_server(gate)) as client:
        with anyio.move_on_after(0.3):
            await client.call_tool("build", {"ref": "main"})
        with anyio.fail_after(5):
            await gate.cleaned_up.wait()
    assert not gate.release.is_set()


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("refuse", {"reason": "no budget"}, "refused: no budget"),
        ("crash", {}, "Error calling tool 'crash' (incident "),
        ("build", {"ref": 3}, "Invalid arguments for tool 'build'"),
    ],
    ids=["tool-error", "masked", "invalid-arguments"],
)
async def test_a_failing_call_completes_with_an_error_result(tool: str, arguments: dict[str, Any], text: str) -> None:
    gate = Gate()
    gate.release.set()
    async with task_client(tasks_server(gate)) as client:
        created = await create(client, tool, arguments)
        done = await until(client, created.task_id, "completed", "failed")
    assert done.status == "completed" and done.result is not None and done.result["isError"] is True
    assert done.result["content"][0]["text"].startswith(text)
    assert "secret internals" not in str(done.result)


async def test_a_client_that_did_not_opt_in_gets_the_blocking_call() -> None:
    gate = Gate()
    gate.release.set()
    async with mcp.Client(tasks_server(gate).as_mcp()) as client:
        result = await client.call_tool("build", {"ref": "main"})
    assert isinstance(result, mt.CallToolResult) and result.content[0].text == "built main"


HANDSHAKE_ERA = (
    "tasks need protocol 2026-07-28 with the io.modelcontextprotocol/tasks extension,"
    " and this session speaks 2025-11-25"
)
"""What a handshake-era client is told: declaring the extension alone would get it no task."""
WHY = {"auto": f"declare the {EXTENSION} extension", "legacy": HANDSHAKE_ERA}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_required_tool_refuses_a_client_that_did_not_opt_in(mode: str) -> None:
    async with mcp.Client(tasks_server().as_mcp(), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("export", {"table": "users"})
    assert raised.value.error.code == mt.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert raised.value.error.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    assert raised.value.error.message == f"Tool 'export' runs only as a task: {WHY[mode]}"


async def test_over_legacy_sse_a_handshake_client_is_told_tasks_need_the_2026_protocol() -> None:
    """A handshake-era client (here over the legacy transport) is told which protocol tasks need
    by a task-only tool and by `tasks/get`: it used to be told to declare the extension, which
    would still get it no task."""
    async with (
        serving(tasks_server().http_app(legacy_sse=True), lifespan="on") as url,
        mcp.Client(sse_client(f"{url}/sse"), mode="legacy", extensions=[TasksExtension()]) as client,
    ):
        with pytest.raises(MCPError) as called:
            await client.call_tool("export", {"table": "users"})
        with pytest.raises(MCPError) as polled:
            await get(client, "a" * 43)
    assert [called.value.error.code, polled.value.error.code] == [mt.MISSING_REQUIRED_CLIENT_CAPABILITY] * 2
    assert called.value.error.message == f"Tool 'export' runs only as a task: {HANDSHAKE_ERA}"
    assert polled.value.error.message == f"tasks/get answers only clients that accept tasks: {HANDSHAKE_ERA}"


async def test_handshake_era_clients_get_the_blocking_call_even_with_the_extension() -> None:
    gate = Gate()
    gate.release.set()
    async with task_client(tasks_server(gate), mode="legacy") as client:
        result = await client.call_tool("build", {"ref": "main"})
    assert result.content[0].text == "built main"


async def test_plain_tools_stay_plain_for_clients_that_accept_tasks() -> None:
    async with task_client(tasks_server()) as client:
        result = await client.session.call_tool("quick", {"x": 1}, allow_claimed=True)
    assert isinstance(result, mt.CallToolResult) and result.structured_content == {"result": 2}


async def test_the_server_advertises_the_extension() -> None:
    async with task_client(tasks_server()) as client:
        capabilities = client.session.server_capabilities
    assert capabilities is not None and capabilities.extensions == {EXTENSION: {}}


async def test_an_unknown_task_id_is_invalid_params() -> None:
    async with task_client(tasks_server()) as client:
        with pytest.raises(MCPError) as raised:
            await get(client, "no-such-task")
    assert (raised.value.error.code, raised.value.error.message) == (-32602, "Failed to retrieve task: Task not found")


async def test_tasks_methods_need_the_extension_declared() -> None:
    server = tasks_server()
    async with task_client(server) as opted, mcp.Client(server.as_mcp()) as plain:
        created = await create(opted, "export", {"table": "t"})
        with pytest.raises(MCPError) as raised:
            await get(plain, created.task_id)
    assert raised.value.error.code == mt.MISSING_REQUIRED_CLIENT_CAPABILITY


def test_a_listed_tool_carries_its_task_support_in_meta() -> None:
    from toolweave.mcp.convert import TASK_SUPPORT_META_KEY, wire_tool

    server = tasks_server()
    assert wire_tool(server.catalog.get("export").tool)["_meta"] == {TASK_SUPPORT_META_KEY: "required"}
    assert "_meta" not in wire_tool(server.catalog.get("quick").tool)


def quick_answers(server: Any) -> Any:
    from toolweave.tasks import configure_tasks

    configure_tasks(server, answer_within=2.0)
    return server


async def test_a_call_that_ends_within_answer_within_is_answered_plainly() -> None:
    async with task_client(quick_answers(tasks_server())) as client:
        result = await client.session.call_tool("export", {"table": "users"}, allow_claimed=True)
    assert isinstance(result, mt.CallToolResult) and result.structured_content == {"table": "users", "rows": 3}


async def test_a_call_that_outlasts_answer_within_still_becomes_a_task() -> None:
    from toolweave.tasks import configure_tasks

    gate = Gate()
    server = tasks_server(gate)
    configure_tasks(server, answer_within=0.05)
    async with task_client(server) as client:
        created = await create(client, "build", {"ref": "main"})
        gate.release.set()
        done = await until(client, created.task_id, "completed")
    assert done.result is not None and done.result["content"][0]["text"] == "built main"


async def test_input_asked_within_answer_within_is_asked_before_any_task_exists() -> None:
    async with task_client(quick_answers(tasks_server())) as client:
        first = await client.session.call_tool("approve", {}, allow_input_required=True, allow_claimed=True)
        assert isinstance(first, mt.InputRequiredResult) and first.input_requests is not None
        answers = {"who": mt.ElicitResult(action="accept", content={"name": "Ada"})}
        second = await client.session.call_tool(
            "approve", {}, input_responses=answers, request_state=first.request_state, allow_claimed=True
        )
    assert isinstance(second, mt.CallToolResult) and second.content[0].text == "approved by Ada (asked)"


async def test_a_protocol_error_within_answer_within_is_the_calls_error() -> None:
    from toolweave import MissingCapability

    server = quick_answers(tasks_server())

    @server.tool(task_support="optional")
    def needs_sampling() -> str:
        raise MissingCapability("sampling")

    async with task_client(server) as client:
        with pytest.raises(MCPError) as raised:
            await client.session.call_tool("needs_sampling", {}, allow_claimed=True)
    assert raised.value.error.code == mt.MISSING_REQUIRED_CLIENT_CAPABILITY


async def test_a_protocol_error_in_a_task_fails_the_task() -> None:
    from toolweave import MissingCapability

    server = tasks_server()

    @server.tool(task_support="optional")
    def needs_sampling() -> str:
        raise MissingCapability("sampling")

    async with task_client(server) as client:
        created = await create(client, "needs_sampling", {})
        done = await until(client, created.task_id, "failed", "completed")
    assert done.status == "failed" and done.result is None and done.error is not None
    assert done.error["code"] == mt.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert done.status_message == "This call requires the client capability 'sampling'"


async def test_giving_up_before_the_call_became_a_task_cancels_its_work() -> None:
    gate = Gate()
    async with task_client(quick_answers(tasks_server(gate))) as client:
        with anyio.move_on_after(0.3):
            await client.session.call_tool("build", {"ref": "main"}, allow_claimed=True)
        with anyio.fail_after(5):
            await gate.cleaned_up.wait()
    assert not gate.release.is_set()


def test_settings_refuse_negative_answer_within() -> None:
    from toolweave.tasks import TaskSettings

    with pytest.raises(ValueError, match="answer_within must be 0 or more seconds"):
        TaskSettings(answer_within=-1)


async def test_a_request_asked_again_gets_a_key_never_used_before_in_the_task() -> None:
    from toolweave import Context, InputRequired, Server, elicit

    server = Server("twice")

    @server.tool(task_support="optional")
    def two_approvals(ctx: Context) -> str:
        rounds = int(ctx.request_state or 0)
        if rounds < 2:
            raise InputRequired({"who": elicit(f"Approver {rounds + 1}?", NAME_FORM)}, state=str(rounds + 1))
        return "approved twice"

    async with task_client(server) as client:
        created = await create(client, "two_approvals", {})
        keys: list[str] = []
        with anyio.fail_after(10):
            while (done := await get(client, created.task_id)).status != "completed":
                for key in done.input_requests or {}:
                    if key not in keys:
                        keys.append(key)
                        await update(client, created.task_id, {key: {"action": "accept", "content": {"name": "Ada"}}})
                await anyio.sleep(0.01)
    assert keys == ["who", "who.2"]
    assert done.result is not None and done.result["content"][0]["text"] == "approved twice"


class SlowToEnd(MemoryTaskStore):
    """A memory store that takes a while to write a task's end: long enough for a round of lease
    renewals to come in meanwhile, as a busy Redis made one now and then."""

    async def put(self, record: TaskRecord) -> bool:
        if record.terminal:
            await anyio.sleep(0.3)  # a lease of 0.3 s renews every 0.1 s
        return await super().put(record)


async def test_a_renewal_that_comes_after_a_tasks_end_is_no_alarm(caplog: pytest.LogCaptureFixture) -> None:
    """The renewal wrote the ended record again, the store kept the end and refused it, and the
    runner took that for its record ended by another replica: a warning for every such task."""
    server, store = tasks_server(), SlowToEnd()
    configure_tasks(server, store=store, lease=0.3)
    with caplog.at_level("WARNING", logger="toolweave.tasks"):
        async with task_client(server) as client:
            created = await create(client, "export", {"table": "users"})
            ended = await until(client, created.task_id, "completed")
            with anyio.fail_after(10):
                while not ((record := await store.get(created.task_id)) and record.terminal):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            await anyio.sleep(0.5)  # the renewal that waited for the end's write writes it again
    assert ended.status == "completed"
    assert "ended without its worker" not in caplog.text


async def test_the_log_quotes_the_name_of_an_answer_not_asked(caplog: pytest.LogCaptureFixture) -> None:
    """The name is the client's text: it cannot forge a log line."""
    caplog.set_level("INFO", "toolweave.tasks")
    forged = "whom\nCRITICAL toolweave.security: caller admin granted"
    async with task_client(tasks_server()) as client:
        created = await create(client, "approve", {})
        await until(client, created.task_id, "input_required")
        await update(client, created.task_id, {forged: {"action": "accept", "content": {"name": "Eve"}}})
    [ignored] = [record.getMessage() for record in caplog.records if "not outstanding" in record.getMessage()]
    assert "\n" not in ignored and repr(forged) in ignored
