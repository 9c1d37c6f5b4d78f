"""The server's middleware reaches the tools catalog transforms add (`search_tools`, `call_tool`,
`get_prompt`, `read_resource`, ...) like any tool, and runs once per call through `call_tool`:
around the tool reached when it wraps that tool, else around `call_tool`."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

from tests.front_tools.callers import as_caller, served
from toolweave import Authorize, PromptsAsTools, ResourcesAsTools, SearchTools, Server
from toolweave.middleware import ConcurrencyLimit, Logging, RateLimit, Timeout
from toolweave.testing import RecordingMiddleware, connect

HANG = 10.0
"""Generous bound on a call that must not hang (the slow parts here sleep far longer)."""


def gateway(*middleware: Any) -> Server:
    """A gateway with a tool, a prompt and a resource behind `SearchTools` and the component tools."""
    server = Server("gateway", middleware=list(middleware))

    @server.tool
    def invoice(customer: str) -> str:
        """Create an invoice for a customer."""
        return f"invoice for {customer}"

    @server.prompt
    async def review(code: str) -> str:
        """Review a piece of code."""
        if code == "slow":
            await anyio.sleep(60)
        return f"Please review: {code}"

    @server.resource("memo://today")
    def today() -> str:
        return "Buy milk"

    server.add_transform(PromptsAsTools())
    server.add_transform(ResourcesAsTools())
    server.add_transform(SearchTools(always=["get_prompt", "read_resource"]))
    return server


async def calls(server: Server, *requests: tuple[str, dict[str, Any]]) -> list[Any]:
    async with connect(server) as client:
        return [await client.call_tool(name, arguments) for name, arguments in requests]


def texts(results: list[Any]) -> list[str]:
    return [result.content[0].text for result in results]


async def test_logging_writes_a_record_for_each_front_tool_call(caplog: pytest.LogCaptureFixture) -> None:
    """`search_tools`, `get_prompt` and `read_resource` calls left no record: their entries had no middleware."""
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    await calls(
        gateway(Logging()),
        ("search_tools", {"query": "invoice"}),
        ("get_prompt", {"name": "review", "arguments": {"code": "x"}}),
        ("read_resource", {"uri": "memo://today"}),
        ("call_tool", {"name": "invoice", "arguments": {"customer": "ada"}}),
        ("call_tool", {"name": "guess"}),
    )
    logged = [(record.tool, record.outcome) for record in caplog.records if record.name == "toolweave.calls"]  # type: ignore[attr-defined]
    assert logged == [
        ("search_tools", "ok"),
        ("get_prompt", "ok"),
        ("read_resource", "ok"),
        ("invoice", "ok"),  # once, as the tool reached
        ("call_tool", "tool_error"),  # a name no tool has: a call of call_tool
    ]


async def test_a_rate_limit_bounds_searches_and_reads_made_through_tools() -> None:
    limited = gateway(RateLimit(rate=0.001, burst=2))
    results = await calls(limited, *[("search_tools", {"query": "invoice"})] * 3)
    assert [result.is_error for result in results] == [False, False, True]
    assert "Rate limit exceeded for tool 'search_tools'" in texts(results)[2]
    reads = await calls(gateway(RateLimit(rate=0.001, burst=1)), *[("read_resource", {"uri": "memo://today"})] * 2)
    assert texts(reads)[0] == "Buy milk"
    assert texts(reads)[1].startswith("Rate limit exceeded for tool 'read_resource'")


async def test_a_timeout_bounds_a_prompt_rendered_through_get_prompt() -> None:
    with anyio.fail_after(HANG):
        (result,) = await calls(
            gateway(Timeout(0.2)), ("get_prompt", {"name": "review", "arguments": {"code": "slow"}})
        )
    assert result.is_error and "timed out" in result.content[0].text


async def test_a_call_through_call_tool_meets_each_middleware_once_around_the_tool_reached() -> None:
    """Each middleware once per call: a rate limit counts a call through `call_tool` once (in the
    reached tool's bucket), and a recorder sees the reached tool, not `call_tool` as well."""
    recorder = RecordingMiddleware()
    server = gateway(recorder, RateLimit(rate=0.001, burst=2, per_tool=True))
    through = ("call_tool", {"name": "invoice", "arguments": {"customer": "ada"}})
    results = await calls(server, through, through, through, ("search_tools", {"query": "invoice"}))
    assert texts(results)[:2] == ["invoice for ada"] * 2
    assert "Rate limit exceeded for tool 'invoice'" in texts(results)[2]
    assert not results[3].is_error  # the search has a bucket of its own
    assert [call.tool.name for call in recorder.calls] == ["invoice", "invoice", "invoice", "search_tools"]


async def test_a_call_through_call_tool_does_not_wait_on_its_own_concurrency_slot() -> None:
    """With the middleware around `call_tool` and the tool reached, `ConcurrencyLimit(1)` would hold
    the one slot for `call_tool` while the tool waited for it."""
    server = gateway(ConcurrencyLimit(1))
    with anyio.fail_after(HANG):
        (result,) = await calls(server, ("call_tool", {"name": "read_resource", "arguments": {"uri": "memo://today"}}))
    assert result.content[0].text == "Buy milk"


async def test_a_middleware_that_selects_only_call_tool_wraps_every_call_through_it() -> None:
    recorder = RecordingMiddleware(tools="call_tool")
    await calls(
        gateway(recorder),
        ("call_tool", {"name": "invoice", "arguments": {"customer": "ada"}}),
        ("call_tool", {"name": "no_such_tool"}),
    )
    assert [call.arguments["name"] for call in recorder.calls] == ["invoice", "no_such_tool"]


async def test_a_name_no_tool_has_is_rate_limited_like_any_call() -> None:
    """A client could try names through `call_tool` without limit: no middleware wrapped a call that reached nothing."""
    results = await calls(gateway(RateLimit(rate=0.001, burst=2)), *[("call_tool", {"name": "guess"})] * 3)
    assert [result.is_error for result in results] == [True, True, True]
    assert "no tool named 'guess'" in texts(results)[1]
    assert texts(results)[2].startswith("Rate limit exceeded for tool 'call_tool'")


async def test_a_forbidden_tool_through_call_tool_is_limited_like_a_name_no_tool_has() -> None:
    """A forbidden tool's chain never runs: its calls meet the middleware around `call_tool`, as a
    made-up name's do, so a rate limit does not tell the two apart."""
    server = gateway(RateLimit(rate=0.001, burst=2, per_tool=True))
    server.add_transform(Authorize(scopes=["billing"]), tools="invoice")
    async with served(server) as url, as_caller(url, "staff") as client:
        names = ("invoice", "guess", "invoice")
        answers = [(await client.call_tool("call_tool", {"name": name})).content[0].text for name in names]
    assert answers[:2] == [
        "no tool named 'invoice' behind this server: find one with `search_tools` first",
        "no tool named 'guess' behind this server: find one with `search_tools` first",
    ]
    assert answers[2].startswith("Rate limit exceeded for tool 'call_tool'")
