"""An upstream tool's task support from the 2025-11-25 `execution.taskSupport` (servers on the
SDKs' experimental tasks), as the gateway lists and calls it."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

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
