"""Masking through a mounted child's front tools: the server the client calls decides, as for the
child's tools mounted directly (a tool's own `MaskErrors` still wins; a `ToolError` passes)."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from tests.tasks.servers import create, task_client, until
from toolweave import Context, MaskErrors, PromptsAsTools, ResourcesAsTools, SearchTools, Server, ToolError
from toolweave.testing import connect

SECRET = "db password=hunter2 at 10.0.0.5"
FRONTS = [
    ("c_call_tool", {"name": "work"}, "Error calling tool 'work'"),
    ("c_get_prompt", {"name": "greet"}, "Error rendering prompt 'greet'"),
    ("c_read_resource", {"uri": "memo://today"}, "Error reading resource 'memo://today'"),
]


def fail() -> str:
    raise RuntimeError(SECRET)


def child(*, mask: bool, **tool: Any) -> Server:
    """A child whose tool, prompt and resource all fail, behind its own front tools."""
    server = Server("child", mask_error_details=mask)
    server.add_tool(fail, name="work", task_support="optional", **tool)
    server.add_prompt(fail, name="greet")
    server.add_resource(fail, "memo://today", name="today")
    server.add_transform(SearchTools(always=("work",)))  # `work` mounted directly too
    server.add_transform(PromptsAsTools())
    server.add_transform(ResourcesAsTools())
    return server


def gateway(*, mask: bool, child_mask: bool, **tool: Any) -> Server:
    server = Server("gateway", mask_error_details=mask)
    server.mount(child(mask=child_mask, **tool), prefix="c")
    return server


def incidents(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.incident for record in caplog.records if hasattr(record, "incident")]


@pytest.mark.parametrize(("front", "arguments", "masked"), FRONTS)
async def test_a_masking_gateway_masks_what_a_childs_front_tool_reaches(
    front: str, arguments: dict[str, Any], masked: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The child shows details (`mask_error_details=False`); the gateway masks, through its front tools too."""
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    async with connect(gateway(mask=True, child_mask=False)) as client:
        result = await client.call_tool(front, arguments)
    text = result.content[0].text
    assert result.is_error
    assert re.fullmatch(rf"{re.escape(masked)} \(incident [0-9a-f]{{8}}\)", text), text
    assert incidents(caplog) == [text[-9:-1]]  # logged once, under the id the client read


@pytest.mark.parametrize(("front", "arguments", "masked"), FRONTS)
async def test_a_gateway_without_masking_shows_details_through_a_masking_childs_front_tools(
    front: str, arguments: dict[str, Any], masked: str
) -> None:
    """As it does for the child's tools, prompts and resources mounted directly."""
    server = gateway(mask=False, child_mask=True)
    async with connect(server) as client:
        result = await client.call_tool(front, arguments)
        direct = await client.call_tool("c_work", {})
    assert direct.content[0].text == f"RuntimeError: {SECRET}"
    assert result.content[0].text == f"RuntimeError: {SECRET}"


@pytest.mark.parametrize("own", [MaskErrors(passthrough=RuntimeError), MaskErrors("work failed ({incident})")])
async def test_a_tools_own_masking_wins_through_call_tool_as_when_mounted_directly(own: MaskErrors) -> None:
    """(A guard: the gateway's policy stands in for the child's, not for the tool's own.)"""
    server = Server("gateway")
    mounted = child(mask=False)
    mounted.remove_tool("work")
    mounted.add_tool(Server("x").add_tool(fail, name="work").with_transforms(own))
    server.mount(mounted, prefix="c")
    async with connect(server) as client:
        through = (await client.call_tool("c_call_tool", {"name": "work"})).content[0].text
        direct = (await client.call_tool("c_work", {})).content[0].text
    assert re.sub("[0-9a-f]{8}", "<id>", through) == re.sub("[0-9a-f]{8}", "<id>", direct)


async def test_a_tool_error_reaches_the_client_through_a_masking_gateway() -> None:
    def refuse() -> str:
        raise ToolError("no invoices before 2020")

    server = gateway(mask=True, child_mask=True)
    server.mounts[0].child.add_tool(refuse, name="refuse")
    async with connect(server) as client:
        result = await client.call_tool("c_call_tool", {"name": "refuse"})
    assert result.content[0].text == "no invoices before 2020"


async def test_a_call_through_a_childs_call_tool_as_a_task_is_masked_by_the_gateway(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    async with task_client(gateway(mask=True, child_mask=False)) as client:
        created = await create(client, "c_call_tool", {"name": "work"})
        done = await until(client, created.task_id, "completed", "failed")
    shown = str(done.model_dump())
    assert SECRET not in shown
    assert f"incident {incidents(caplog)[0]}" in shown


async def test_an_in_process_call_is_masked_by_its_own_server_whatever_the_context_saw_before() -> None:
    """The policy of a client's call holds for that call only: a `Context` used again is not marked."""
    ctx = Context()
    open_server, masking = Server("open", mask_error_details=False), Server("closed")
    open_server.add_tool(fail, name="work")
    masking.add_tool(fail, name="work")
    assert (await open_server.call_tool("work", ctx=ctx)).text == f"RuntimeError: {SECRET}"
    assert SECRET not in (await masking.call_tool("work", ctx=ctx)).text


async def test_an_in_process_call_with_the_clients_context_is_masked_as_the_client_call_is() -> None:
    """A tool relaying another server's answer: the server the client called decides, as for a front tool."""
    open_server, server = Server("open", mask_error_details=False), Server("gateway")
    open_server.add_tool(fail, name="work")

    @server.tool
    async def relay(ctx: Context) -> str:
        return (await open_server.call_tool("work", ctx=ctx)).text

    async with connect(server) as client:
        text = (await client.call_tool("relay", {})).content[0].text
    assert re.fullmatch(r"Error calling tool 'work' \(incident [0-9a-f]{8}\)", text), text
