"""`CircuitBreaker`: opens after consecutive failures, half-opens after the pause, one probe."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from toolweave import Context, Server, Tool, ToolError, ToolResult, UpstreamError
from toolweave.core.deadlines import abandoned_tasks
from toolweave.middleware import CircuitBreaker, Timeout
from toolweave.testing import connect


class Upstream:
    """A remote-like tool run whose next outcomes are scripted."""

    def __init__(self) -> None:
        self.down = True
        self.calls = 0
        self.gate: anyio.Event | None = None
        self.entered = anyio.Event()

    async def __call__(self, arguments: dict[str, Any], ctx: Context) -> ToolResult:
        self.calls += 1
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.down:
            raise UpstreamError("upstream 'github' went away")
        return ToolResult(structured_content={"ok": True})


def _server(breaker: CircuitBreaker, upstream: Upstream) -> Server:
    server = Server("gateway", middleware=[breaker])
    for name in ("gh_search", "gh_issue"):
        server.add_tool(Tool(name=name, input_schema={"type": "object"}, run=upstream))
    return server


async def test_the_circuit_opens_after_consecutive_failures_and_fails_fast() -> None:
    breaker, upstream = CircuitBreaker(failures=2, reset_after=60), Upstream()
    server = _server(breaker, upstream)
    for _ in range(2):
        assert "went away" in (await server.call_tool("gh_search")).text
    rejected = await server.call_tool("gh_issue")  # one circuit for the whole mount by default
    assert rejected.is_error and rejected.text.startswith("Circuit open for tool 'gh_issue': retry in ")
    assert upstream.calls == 2
    assert breaker.circuit().state == "open"


async def test_after_the_pause_one_probe_closes_it_again() -> None:
    breaker, upstream = CircuitBreaker(failures=1, reset_after=0.01), Upstream()
    server = _server(breaker, upstream)
    await server.call_tool("gh_search")
    await anyio.sleep(0.02)
    upstream.down, upstream.gate, upstream.entered = False, anyio.Event(), anyio.Event()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.call_tool, "gh_search")
        await upstream.entered.wait()
        during_probe = await server.call_tool("gh_issue")
        upstream.gate.set()
    assert during_probe.is_error and "probe call is in progress" in during_probe.text
    assert breaker.circuit().state == "closed"
    assert not (await server.call_tool("gh_issue")).is_error


async def test_a_failed_probe_opens_it_again() -> None:
    breaker, upstream = CircuitBreaker(failures=3, reset_after=0.01), Upstream()
    server = _server(breaker, upstream)
    for _ in range(3):
        await server.call_tool("gh_search")
    await anyio.sleep(0.02)
    await server.call_tool("gh_search")  # the probe fails
    assert breaker.circuit().state == "open"
    assert "Circuit open" in (await server.call_tool("gh_search")).text
    assert upstream.calls == 4


@pytest.mark.parametrize("timeout_outside", [True, False])
async def test_calls_a_timeout_ends_open_the_circuit_wherever_the_timeout_sits(timeout_outside: bool) -> None:
    breaker, timeout = CircuitBreaker(failures=2, reset_after=30), Timeout(default=0.05)
    server = Server("s", middleware=[timeout, breaker] if timeout_outside else [breaker, timeout])

    @server.tool
    async def hang() -> str:
        await anyio.sleep(5)
        return "never"

    answers = [(await server.call_tool("hang", {})).text for _ in range(3)]
    assert answers[:2] == ["Tool 'hang' timed out after 0.05s"] * 2
    assert answers[2].startswith("Circuit open for tool 'hang'") and breaker.circuit().state == "open"


def _late_tools(server: Server) -> None:
    """Tools whose value comes back after a 0.05 s deadline: one ignores the cancellation, one
    blocks the loop (the watchdog never fires)."""

    @server.tool
    async def stubborn() -> str:
        with anyio.CancelScope(shield=True):
            await anyio.sleep(0.2)
        return "late"

    @server.tool
    async def blocking() -> str:
        time.sleep(0.2)  # noqa: ASYNC251 - blocks the loop on purpose
        return "late"


@pytest.mark.parametrize("tool", ["stubborn", "blocking"])
@pytest.mark.parametrize("over_mcp", [False, True])
async def test_a_value_that_comes_back_after_the_deadline_is_a_failure_not_a_success(tool: str, over_mcp: bool) -> None:
    """The client got a timeout: the late value the `Timeout` outside discards must not close or
    keep closed the circuit (it counted as a success, and hung tools never opened it)."""
    breaker = CircuitBreaker(failures=2, reset_after=30)
    server = Server("s", middleware=[Timeout(default=0.05), breaker])
    _late_tools(server)
    if over_mcp:  # the call abandoned at the deadline, its value recorded when it comes back
        answers, before = [], abandoned_tasks()
        async with connect(server) as client:
            for _ in range(3):
                answers.append((await client.call_tool(tool, {})).content[0].text)  # type: ignore[union-attr]
                with anyio.fail_after(5):
                    while abandoned_tasks() > before:  # until its value came back and was recorded  # noqa: ASYNC110
                        await anyio.sleep(0.01)
    else:
        answers = [(await server.call_tool(tool, {})).text for _ in range(3)]
    assert answers[:2] == [f"Tool '{tool}' timed out after 0.05s"] * 2
    assert answers[2].startswith(f"Circuit open for tool '{tool}'") and breaker.circuit().state == "open"


async def test_a_call_cancelled_by_its_caller_counts_as_neither() -> None:
    breaker = CircuitBreaker(failures=1, reset_after=30)
    server = Server("s", middleware=[breaker])

    @server.tool
    async def hang() -> str:
        await anyio.sleep(5)
        return "never"

    with anyio.move_on_after(0.05):
        await server.call_tool("hang", {})
    assert breaker.circuit().state == "closed"


async def test_tool_errors_and_error_results_are_answers_not_failures() -> None:
    async def answer(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        if arguments.get("raise"):
            raise ToolError("no such repo")
        return ToolResult.error("rate limited by GitHub")

    breaker = CircuitBreaker(failures=1)
    server = Server("answers", middleware=[breaker])
    server.add_tool(Tool(name="gh", input_schema={"type": "object"}, run=answer))
    for arguments in ({}, {"raise": True}, {}):
        assert (await server.call_tool("gh", arguments)).is_error
    assert breaker.circuit().state == "closed"


async def test_error_results_can_count_as_failures() -> None:
    async def answer(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        return ToolResult.error("503 from upstream")

    breaker = CircuitBreaker(failures=1, count_error_results=True)
    server = Server("strict", middleware=[breaker])
    server.add_tool(Tool(name="gh", input_schema={"type": "object"}, run=answer))
    await server.call_tool("gh")
    assert breaker.circuit().state == "open"


async def test_per_tool_circuits_are_independent() -> None:
    breaker, upstream = CircuitBreaker(failures=1, per_tool=True), Upstream()
    server = _server(breaker, upstream)
    await server.call_tool("gh_search")
    await server.call_tool("gh_issue")
    assert upstream.calls == 2
    assert breaker.circuit("gh_search").state == breaker.circuit("gh_issue").state == "open"


@pytest.mark.parametrize(("options", "match"), [({"failures": 0}, "failures"), ({"reset_after": 0}, "reset_after")])
def test_bad_settings_are_refused(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        CircuitBreaker(**options)
