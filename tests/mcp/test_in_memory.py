"""The server through the official `mcp` client in memory, in both protocol eras."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import MCPError
from mcp.client.subscriptions import ToolsListChanged

from toolweave import Context, Server, ToolError
from toolweave.testing import connect, fake_tool

MODES = ["auto", "legacy"]


def demo_server(**options: Any) -> Server:
    server = Server("demo", instructions="Be nice.", **options)

    @server.tool(annotations={"readOnlyHint": True})
    async def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    @server.tool
    async def slow_count(ctx: Context, steps: int = 3) -> str:
        """Count with progress and logs."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        await ctx.info("counted")
        return "done"

    @server.tool
    def fail() -> str:
        raise ToolError("nope, not today")

    @server.tool
    def crash() -> str:
        raise RuntimeError("internal detail")

    return server


@pytest.mark.parametrize("mode", MODES)
async def test_tools_are_listed_with_their_schemas(mode: str) -> None:
    async with connect(demo_server(), mode=mode) as client:
        listed = await client.list_tools()
    add = listed.tools[0]
    assert [t.name for t in listed.tools] == ["add", "slow_count", "fail", "crash"]
    assert add.description == "Add two numbers." and add.annotations.read_only_hint is True
    assert add.input_schema["required"] == ["a"] and add.output_schema["properties"]["result"]["type"] == "integer"
    assert "ctx" not in listed.tools[1].input_schema["properties"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_call_returns_text_and_structured_content(mode: str) -> None:
    async with connect(demo_server(), mode=mode) as client:
        result = await client.call_tool("add", {"a": 40})
    assert result.is_error is False
    assert result.content[0].text == "42" and result.structured_content == {"result": 42}


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_arguments_are_an_error_result_listing_the_problems(mode: str) -> None:
    async with connect(demo_server(), mode=mode) as client:
        result = await client.call_tool("add", {"a": "forty", "zz": 1})
    assert result.is_error is True
    text = result.content[0].text
    assert text.startswith("Invalid arguments for tool 'add':")
    assert "- a: " in text and "- zz: unexpected argument" in text and "forty" not in text


@pytest.mark.parametrize("mode", MODES)
async def test_tool_errors_and_masked_errors_are_error_results(mode: str) -> None:
    async with connect(demo_server(), mode=mode) as client:
        refused = await client.call_tool("fail", {})
        crashed = await client.call_tool("crash", {})
    assert refused.is_error and refused.content[0].text == "nope, not today"
    assert crashed.is_error and crashed.content[0].text.startswith("Error calling tool 'crash' (incident ")
    assert "internal detail" not in crashed.content[0].text


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_tool_is_a_protocol_error(mode: str) -> None:
    async with connect(demo_server(), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("nope", {})
    assert raised.value.error.code == -32602 and raised.value.error.message == "Unknown tool: nope"


@pytest.mark.parametrize("mode", MODES)
async def test_progress_and_logs_reach_the_client_that_asked(mode: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async with connect(demo_server(), mode=mode, logging_callback=on_log, log_level="info") as client:
        result = await client.call_tool("slow_count", {"steps": 2}, progress_callback=on_progress)
    assert result.content[0].text == "done"
    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert logs == ["counted"]


async def test_list_changed_reaches_handshake_era_clients() -> None:
    server = demo_server()
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            changed.set()

    async with connect(server, mode="legacy", message_handler=on_message) as client:
        assert client.server_capabilities.tools.list_changed is True
        assert client.instructions == "Be nice."
        await client.list_tools()
        server.disable("crash")
        with anyio.fail_after(5):
            await changed.wait()
        assert [t.name for t in (await client.list_tools()).tools] == ["add", "slow_count", "fail"]


async def test_list_changed_reaches_2026_subscribers() -> None:
    server = demo_server()
    async with connect(server) as client, client.listen(tools_list_changed=True) as events:
        server.add_tool(fake_tool("late"))
        with anyio.fail_after(5):
            async for event in events:
                assert isinstance(event, ToolsListChanged)
                break
        assert "late" in [t.name for t in (await client.list_tools()).tools]


@pytest.mark.parametrize("mode", MODES)
async def test_large_catalogs_are_paginated_with_cursors(mode: str) -> None:
    server = Server("many", page_size=3)
    for index in range(8):
        server.add_tool(fake_tool(f"tool_{index}"))
    names, cursor, pages = [], None, 0
    async with connect(server, mode=mode, cache=None) as client:
        while True:
            listed = await client.list_tools(cursor=cursor)
            names += [t.name for t in listed.tools]
            pages += 1
            cursor = listed.next_cursor
            if cursor is None:
                break
        with pytest.raises(MCPError) as raised:
            await client.list_tools(cursor="bogus")
    assert names == [f"tool_{i}" for i in range(8)] and pages == 3
    assert raised.value.error.code == -32602


@pytest.mark.parametrize("cursor", ["bogus", "-1", "9", "\u00b2", "\u0661", "1" * 5000, "0" * 100_000])
async def test_a_cursor_we_did_not_give_is_invalid_and_never_quoted(cursor: str) -> None:
    """A superscript or Arabic-Indic digit passed `str.isdigit` (an internal error with a logged
    traceback, or page 1), 5,000 digits broke `int()`, and the answer quoted the cursor whole."""
    server = Server("many", page_size=3)
    for index in range(8):
        server.add_tool(fake_tool(f"tool_{index}"))
    async with connect(server, cache=None) as client:
        for listing in (client.list_tools, client.list_prompts, client.list_resources):
            with pytest.raises(MCPError) as raised:
                await listing(cursor=cursor)
            assert (raised.value.error.code, raised.value.error.message) == (-32602, "Invalid cursor")


@pytest.mark.parametrize("mode", MODES)
async def test_the_listing_order_is_deterministic(mode: str) -> None:
    async with connect(demo_server(), mode=mode, cache=None) as client:
        first = [t.name for t in (await client.list_tools()).tools]
        second = [t.name for t in (await client.list_tools()).tools]
    assert first == second
