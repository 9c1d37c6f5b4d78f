"""Another implementation drives toolweave's tasks: the fastmcp 4 client with `fastmcp-tasks`.

Pydantic AI's `MCPToolset` wraps this client and loads `fastmcp-tasks`, which makes it declare the
tasks extension and poll tasks behind `call_tool` by default, so this is the path such agents take.
"""

from __future__ import annotations

from typing import Any

import anyio

from tests.optional import require
from tests.serving import serving
from tests.tasks.servers import Gate, tasks_server
from toolweave.tasks import MemoryTaskStore, TaskRecord, configure_tasks

fastmcp = require("fastmcp", "the fastmcp client (a dev extra) is not installed")
fastmcp_tasks = require(
    "fastmcp_tasks", "fastmcp-tasks (a dev extra; the fastmcp client drives tasks with it) is not installed"
)


class KeptTasks(MemoryTaskStore):
    """The server's task store, remembering how each task it kept ended (tool, status)."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: list[tuple[str | None, str]] = []

    async def put(self, record: TaskRecord) -> None:
        if record.terminal:
            self.ended.append((record.tool, record.status))
        await super().put(record)


def server(gate: Gate, store: MemoryTaskStore | None = None) -> Any:
    app = tasks_server(gate)
    configure_tasks(app, poll_interval=0.02, store=store)
    return app.http_app()


async def test_call_tool_drives_a_task_to_its_result() -> None:
    gate = Gate()
    gate.release.set()
    async with serving(server(gate)) as url, fastmcp.Client(f"{url}/mcp") as client:
        result = await client.call_tool("build", {"ref": "main"})
        exported = await client.call_tool("export", {"table": "users"})
    assert result.content[0].text == "built main"
    assert exported.structured_content == {"table": "users", "rows": 3}


async def test_a_task_handle_reports_status_and_result() -> None:
    gate = Gate()
    async with serving(server(gate)) as url, fastmcp.Client(f"{url}/mcp") as client:
        task = await fastmcp_tasks.call_tool_task(client, "build", {"ref": "v2"})
        await gate.entered.wait()
        status = await task.status()
        gate.release.set()
        result = await task.result()
    assert status.status == "working" and result.content[0].text == "built v2"


async def test_input_is_answered_by_the_clients_elicitation_handler() -> None:
    async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        return {"name": f"Lin ({message})"}

    async with (
        serving(server(Gate())) as url,
        fastmcp.Client(f"{url}/mcp", elicitation_handler=on_elicit) as client,
    ):
        result = await client.call_tool("approve", {})
    assert result.content[0].text == "approved by Lin (Who approves?) (asked)"


async def test_cancelling_through_the_handle_runs_the_tools_finally() -> None:
    gate = Gate()
    async with serving(server(gate)) as url, fastmcp.Client(f"{url}/mcp") as client:
        task = await fastmcp_tasks.call_tool_task(client, "build", {"ref": "main"})
        await gate.entered.wait()
        await task.cancel()
        with anyio.fail_after(5):
            await gate.cleaned_up.wait()
        status = await task.status()
    assert status.status == "cancelled"


async def test_pydantic_ai_mcp_toolset_runs_task_tools_as_tasks_by_default() -> None:
    """With its defaults (no `use_task`), `MCPToolset` declares the tasks extension (it loads
    `fastmcp-tasks`) and the server runs an optional tool's call as a task, polled behind it."""
    pydantic_ai_mcp = require("pydantic_ai.mcp", "Pydantic AI (an optional interop peer) is not installed")
    gate, store = Gate(), KeptTasks()
    gate.release.set()
    async with serving(server(gate, store)) as url:
        toolset = pydantic_ai_mcp.MCPToolset(f"{url}/mcp")
        async with toolset:
            built = await toolset.direct_call_tool("build", {"ref": "main"})
            required = await toolset.direct_call_tool("export", {"table": "users"})
    assert built == "built main"
    assert required == {"table": "users", "rows": 3}
    assert store.ended == [("build", "completed"), ("export", "completed")]
