"""Every tool argument reaches the catalog through a LangChain tool, whatever its name.

LangChain passes a tool's arguments as keywords beside its own parameters: an argument named
`self` crashed the call ("got multiple values for argument 'self'") and one named
`toolweave_run_config` was replaced by the run config.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")

from langchain_core.messages import ToolMessage

from toolweave import Server
from toolweave.adapters.langchain import structured_tools
from toolweave.testing import fake_tool

NAMES = ["self", "toolweave_run_config", "config", "run_manager", "callbacks", "args", "kwargs", "tool_call_id"]


def echoing(names: list[str]) -> Server:
    """A tool `echo` taking string arguments `names` (all required), answering with what it got."""
    server = Server("s")
    schema = {"type": "object", "properties": {name: {"type": "string"} for name in names}, "required": names}
    server.add_tool(fake_tool("echo", schema))
    return server


@pytest.mark.parametrize("name", NAMES)
async def test_an_argument_of_any_name_reaches_the_tool(name: str) -> None:
    [tool] = structured_tools(echoing([name]))
    message = await tool.ainvoke({"type": "tool_call", "id": "c1", "name": "echo", "args": {name: "v"}})
    assert isinstance(message, ToolMessage)
    assert (message.status, message.artifact) == ("success", {name: "v"})


async def test_all_of_them_at_once_reach_the_tool() -> None:
    [tool] = structured_tools(echoing(NAMES))
    arguments: dict[str, Any] = {name: f"<{name}>" for name in NAMES}
    message = await tool.ainvoke({"type": "tool_call", "id": "c1", "name": "echo", "args": arguments}, config={})
    assert message.artifact == arguments
