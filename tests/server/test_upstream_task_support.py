"""An upstream tool's task support from the 2025-11-25 `execution.taskSupport` (servers on the
SDKs' experimental tasks), as the gateway lists and calls it."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import mcp
import mcp.types as mt
import pytest

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.server.remote import RemoteServer
from toolweave.testing import connect

UPSTREAMS = Path(__file__).parent / "upstreams"


async def test_a_handshake_upstreams_required_task_tool_is_left_out_and_its_optional_one_called_plainly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """It was listed without its task support, looking callable, and every call failed with the
    upstream's own "requires task augmentation"."""
    caplog.set_level(logging.WARNING, "toolweave.upstream")
    remote = RemoteServer.stdio(
        sys.executable, [str(UPSTREAMS / "ll_upstream.py"), "sep1686-tasks"], env=subprocess_env(), name="ll"
    )
    gateway = Server("gateway")
    gateway.mount(remote, prefix="up")
    async with connect(gateway) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        summarized = await client.call_tool("up_summarize", {})
        era = remote.era
    assert "up_research" not in listed and "up_echo" in listed
    assert gateway.catalog.get("up_summarize").tool.task_support == "optional"
    assert not summarized.is_error and summarized.content[0].text == "summarized"  # type: ignore[union-attr]
    assert era == "2025"  # the handshake's experimental tasks are no reason to try server/discover
    skipped = [r.getMessage() for r in caplog.records if "research" in r.getMessage()]
    assert len(skipped) == 1 and skipped[0].startswith("[ll] skipping upstream tool 'research'")


async def answer_ada(context: object, params: mt.ElicitRequestParams) -> mt.ElicitResult:
    return mt.ElicitResult(action="accept", content={"name": "Ada"})


@pytest.mark.xfail(
    strict=True,
    reason="a toolweave upstream without a task-capable tool is spoken to with the 2025 handshake: its "
    "InitializeResult does not say it serves 2026-07-28 (the SDK's 2025-11-25 sieve drops "
    "capabilities.extensions), and the gateway passes on input only from a 2026-era upstream",
)
async def test_a_toolweave_upstream_without_task_tools_asks_the_gateways_client_for_input() -> None:
    """The README: "a toolweave upstream serves both eras and is spoken to in the 2026-07-28 one"."""
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "tw_input_upstream.py")], env=subprocess_env())
    gateway = Server("gateway")
    gateway.mount(remote, prefix="tw")
    async with mcp.Client(gateway.as_mcp(), elicitation_callback=answer_ada) as client:  # type: ignore[arg-type]
        approved = await client.call_tool("tw_approve", {})
    assert not approved.is_error, approved.content[0].text  # type: ignore[union-attr]
    assert approved.content[0].text == "approved by Ada"  # type: ignore[union-attr]
    assert remote.era == "2026"
