"""A config's `transforms` rules reach the tools its `catalog` section adds as the same rules
written with the Python API do: `scopes` gates them, `limit_result` cuts their answers (the
rest of a rule, a rename or an argument, stays the server's own tools')."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import MCPError

from tests.front_tools.callers import as_caller, served
from toolweave.config import Config, build

SOURCE = {"import": "tests.front_tools.big_docs:server"}


def gateway(**sections: Any) -> Any:
    config = {"server": {"name": "gateway"}, "python": [SOURCE], **sections}
    return build(Config.model_validate(config)).server


async def test_a_rules_scopes_gate_call_tool() -> None:
    """ "Searching is open, calling is for staff": the rule was dropped for `call_tool`, so any
    caller called every tool behind the search."""
    server = gateway(catalog={"search": {}}, transforms=[{"tools": "call_tool", "scopes": ["staff"]}])
    async with served(server) as url:
        async with as_caller(url, "guest") as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            with pytest.raises(MCPError, match="Unknown tool: call_tool"):
                await client.call_tool("call_tool", {"name": "huge"})
        async with as_caller(url, "staff") as client:
            called = await client.call_tool("call_tool", {"name": "huge"})
    assert listed == ["search_tools"]
    assert not called.is_error and called.content[0].text.startswith("zzz")


async def test_a_rules_limit_result_cuts_what_read_resource_and_get_prompt_answer() -> None:
    server = gateway(
        catalog={"prompts_as_tools": True, "resources_as_tools": True},
        transforms=[{"tools": "*", "limit_result": {"max_bytes": 300}, "annotations": {"read_only": True}}],
    )
    async with served(server) as url, as_caller(url, "guest") as client:
        answers = [
            await client.call_tool(name, arguments)
            for name, arguments in [
                ("huge", {}),
                ("read_resource", {"uri": "memo://big"}),
                ("get_prompt", {"name": "long"}),
            ]
        ]
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert [len(answer.content[0].text) < 400 for answer in answers] == [True, True, True]
    assert tools["huge"].annotations.read_only_hint and tools["get_prompt"].annotations.title is None
