"""Tasks driven the way a careless or hostile client would (official client, in memory)."""

from __future__ import annotations

from typing import Any, Literal

import anyio
import mcp.types as mt
import pytest
from mcp import MCPError
from pydantic import Field

from tests.tasks.servers import create, get, task_client, tasks_server, until, update
from toolweave.tasks import tasks_settings
from toolweave.tasks.serving import GetTaskParams


class LooseUpdateParams(GetTaskParams):
    """`tasks/update` params as a client that sends anything would build them."""

    input_responses: dict[str, Any] = Field(alias="inputResponses")


class LooseUpdate(mt.Request[LooseUpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"


@pytest.mark.parametrize(
    "answer",
    [{"garbage": 1}, {"action": "accept", "content": "not an object"}, {"action": "maybe"}, "yes"],
)
async def test_a_malformed_answer_is_invalid_params_and_the_task_still_waits(answer: Any) -> None:
    async with task_client(tasks_server()) as client:
        created = await create(client, "approve", {})
        await until(client, created.task_id, "input_required")
        params = LooseUpdateParams(taskId=created.task_id, inputResponses={"who": answer})
        with pytest.raises(MCPError) as raised:
            await client.session.send_request(LooseUpdate(params=params), mt.EmptyResult)
        await anyio.sleep(0.05)
        waiting = await get(client, created.task_id)
        await update(client, created.task_id, {"who": {"action": "accept", "content": {"name": "Ada"}}})
        done = await until(client, created.task_id, "completed")
    assert raised.value.error.code == mt.INVALID_PARAMS
    assert waiting.status == "input_required"
    assert done.result is not None and done.result["content"][0]["text"] == "approved by Ada (asked)"


class LooseGetParams(mt.RequestParams):
    """`tasks/get` params with anything as the task id."""

    task_id: Any = Field(alias="taskId")


class LooseGet(mt.Request[LooseGetParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"


@pytest.mark.parametrize("task_id", [123, None, ["a"]])
async def test_a_task_id_that_is_not_a_string_is_invalid_params_not_an_internal_error(task_id: Any) -> None:
    async with task_client(tasks_server()) as client:
        with pytest.raises(MCPError) as raised:
            await client.session.send_request(LooseGet(params=LooseGetParams(taskId=task_id)), mt.EmptyResult)
    assert raised.value.error.code == mt.INVALID_PARAMS


async def test_a_client_that_cannot_answer_a_tasks_input_cancels_the_task() -> None:
    server = tasks_server()
    async with task_client(server) as client:  # no elicitation callback
        with pytest.raises(MCPError):
            await client.call_tool("approve", {})
        records = list(tasks_settings(server).store._records.values())  # type: ignore[attr-defined]
        assert len(records) == 1
        ended = await until(client, records[0].task_id, "cancelled", "completed", "failed")
    assert ended.status == "cancelled"
