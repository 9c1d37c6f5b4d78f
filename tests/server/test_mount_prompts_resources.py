"""Mounted servers' prompts and resources, with prefixes, through the `mcp` client."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp
import pytest

from toolweave import DuplicateError, Middleware, PromptCall, ResourceRead, Server
from toolweave.testing import connect

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


def billing() -> Server:
    child = Server("billing")

    @child.prompt
    def dunning(customer: str, days: int = 30) -> str:
        """Remind a customer to pay."""
        return f"Remind {customer}: {days} days overdue."

    @child.resource("resource://invoices")
    def invoices() -> list[int]:
        return [1, 2]

    @child.resource("resource://invoices/{id}")
    def invoice(id: int) -> dict[str, int]:
        return {"id": id}

    @child.resource("urn:billing:{year}/{month}")
    def period(year: int, month: int) -> str:
        return f"{year}-{month:02d}"

    return child


@MODES
async def test_mounted_prompts_get_the_name_prefix(mode: str) -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), "billing")
    async with connect(gateway, mode=mode) as client:
        assert [p.name for p in (await client.list_prompts()).prompts] == ["billing_dunning"]
        result = await client.get_prompt("billing_dunning", {"customer": "Ada", "days": "5"})
        assert result.messages[0].content.text == "Remind Ada: 5 days overdue."
        with pytest.raises(mcp.MCPError, match="Unknown prompt: dunning"):
            await client.get_prompt("dunning", {"customer": "Ada"})


@MODES
async def test_mounted_resources_get_the_prefix_as_first_path_segment(mode: str) -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), "billing")
    async with connect(gateway, mode=mode) as client:
        assert [r.uri for r in (await client.list_resources()).resources] == ["resource://billing/invoices"]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == [
            "resource://billing/invoices/{id}",
            "urn:billing/billing:{year}/{month}",
        ]
        [static] = (await client.read_resource("resource://billing/invoices")).contents
        assert (static.uri, static.text) == ("resource://billing/invoices", "[1, 2]")
        [one] = (await client.read_resource("resource://billing/invoices/7")).contents
        assert (one.uri, one.text) == ("resource://billing/invoices/7", '{"id": 7}')
        [period] = (await client.read_resource("urn:billing/billing:2026/3")).contents
        assert period.text == "2026-03"
        with pytest.raises(mcp.MCPError, match="Unknown resource: resource://invoices/7"):
            await client.read_resource("resource://invoices/7")


@MODES
async def test_nested_mounts_stack_prefixes(mode: str) -> None:
    middle = Server("middle")
    middle.mount(billing(), "billing")
    top = Server("top")
    top.mount(middle, "eu")
    async with connect(top, mode=mode) as client:
        assert [p.name for p in (await client.list_prompts()).prompts] == ["eu_billing_dunning"]
        [one] = (await client.read_resource("resource://eu/billing/invoices/3")).contents
        assert (one.uri, one.text) == ("resource://eu/billing/invoices/3", '{"id": 3}')


async def test_a_mount_without_prefix_keeps_names_and_uris() -> None:
    gateway = Server("gateway")
    gateway.mount(billing())
    assert [p.name for p in await gateway.list_prompts()] == ["dunning"]
    assert (await gateway.read_resource("resource://invoices/2")).text == '{"id": 2}'


async def test_the_childs_later_changes_show_up_in_the_parent() -> None:
    child = billing()
    gateway = Server("gateway")
    gateway.mount(child, "billing")
    assert len(await gateway.list_prompts()) == 1
    child.add_prompt(lambda: "late", name="late")
    child.add_resource(lambda: "late", "resource://late", name="late")
    assert [p.name for p in await gateway.list_prompts()] == ["billing_dunning", "billing_late"]
    assert (await gateway.read_resource("resource://billing/late")).text == "late"
    child.disable("dunning")
    assert [p.name for p in await gateway.list_prompts()] == ["billing_late"]


async def test_child_changes_reach_the_parents_clients() -> None:
    child = Server("child")
    gateway = Server("gateway")
    gateway.mount(child, "c")
    async with (
        connect(gateway) as client,
        client.listen(prompts_list_changed=True, resources_list_changed=True) as events,
    ):
        child.add_prompt(lambda: "x", name="late")
        with anyio.fail_after(5):
            assert type(await events.__anext__()).__name__ == "PromptsListChanged"
        child.add_resource(lambda: "x", "resource://late", name="late")
        with anyio.fail_after(5):
            assert type(await events.__anext__()).__name__ == "ResourcesListChanged"


@pytest.mark.parametrize("policy", ["error", "warn", "replace", "ignore"])
async def test_a_clash_between_local_and_mounted_follows_on_duplicate(
    policy: Any, caplog: pytest.LogCaptureFixture
) -> None:
    gateway = Server("gateway", on_duplicate=policy)
    gateway.add_prompt(lambda customer: "local", name="dunning")
    gateway.add_resource(lambda: "local", "resource://invoices", name="invoices")
    gateway.mount(billing())
    if policy == "error":
        with pytest.raises(DuplicateError, match="prompt name 'dunning' is claimed twice"):
            await gateway.list_prompts()
        with pytest.raises(DuplicateError, match="resource 'resource://invoices' is claimed twice"):
            await gateway.list_resources()
        return
    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        prompt = await gateway.get_prompt("dunning", {"customer": "Ada"})
        contents = (await gateway.read_resource("resource://invoices")).text
    mounted_wins = policy in ("warn", "replace")
    assert (prompt.messages[0].text != "local") is mounted_wins
    assert (contents != "local") is mounted_wins
    assert ("claimed twice" in caplog.text) is (policy == "warn")


class Recorder(Middleware):
    def __init__(self, label: str, log: list[str]) -> None:
        self.label, self.log = label, log

    async def on_get_prompt(self, call: PromptCall, call_next: Any) -> Any:
        self.log.append(f"{self.label} prompt {call.prompt.name}")
        return await call_next(call)

    async def on_read_resource(self, read: ResourceRead, call_next: Any) -> Any:
        self.log.append(f"{self.label} resource {read.uri}")
        return await call_next(read)


async def test_the_childs_middleware_runs_inside_the_parents_and_sees_child_names() -> None:
    log: list[str] = []
    child = billing()
    child.add_middleware(Recorder("child", log))
    gateway = Server("gateway", middleware=[Recorder("parent", log)])
    gateway.mount(child, "billing")
    async with connect(gateway) as client:
        await client.get_prompt("billing_dunning", {"customer": "Ada"})
        await client.read_resource("resource://billing/invoices/4")
    assert log == [
        "parent prompt billing_dunning",
        "child prompt dunning",
        "parent resource resource://billing/invoices/4",
        "child resource resource://invoices/4",
    ]


async def test_middleware_added_to_the_child_after_mounting_applies() -> None:
    log: list[str] = []
    child = billing()
    gateway = Server("gateway")
    gateway.mount(child, "billing")
    await gateway.get_prompt("billing_dunning", {"customer": "Ada"})
    child.add_middleware(Recorder("late", log))
    await gateway.get_prompt("billing_dunning", {"customer": "Ada"})
    await gateway.read_resource("resource://billing/invoices")
    assert log == ["late prompt dunning", "late resource resource://invoices"]
