"""`Retry`: only safe tools, only real failures, counted, within the deadline."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolweave import Context, Rejected, Server, Tool, ToolError, ToolResult, ToolTimeout, UpstreamError
from toolweave.core.errors import ArgumentProblem, InvalidArguments
from toolweave.core.tool import ToolAnnotations
from toolweave.middleware import Retry
from toolweave.testing import connect

IDEMPOTENT = ToolAnnotations(idempotent_hint=True)
READ_ONLY = ToolAnnotations(read_only_hint=True)


class Flaky:
    """A tool run that raises `errors` in turn, then succeeds; counts its attempts."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.attempts = 0

    async def __call__(self, arguments: dict[str, Any], ctx: Context) -> ToolResult:
        self.attempts += 1
        if self.errors:
            raise self.errors.pop(0)
        return ToolResult(structured_content={"attempt": self.attempts})


def _server(retry: Retry, run: Flaky, annotations: ToolAnnotations | None = IDEMPOTENT) -> Server:
    server = Server("retry", middleware=[retry])
    server.add_tool(Tool(name="flaky", input_schema={"type": "object"}, run=run, annotations=annotations))
    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_transient_failures_of_an_idempotent_tool_are_retried_and_counted(mode: str) -> None:
    retry, run = Retry(attempts=3, backoff=0), Flaky(ConnectionError("reset"), OSError("again"))
    async with connect(_server(retry, run), mode=mode) as client:
        result = await client.call_tool("flaky", {})
    assert not result.is_error and result.structured_content == {"attempt": 3}
    assert retry.retries == 2


async def test_read_only_tools_are_retried_too() -> None:
    retry, run = Retry(backoff=0), Flaky(ConnectionError())
    assert not (await _server(retry, run, READ_ONLY).call_tool("flaky")).is_error
    assert retry.retries == 1


async def test_a_tool_not_marked_safe_is_never_retried() -> None:
    retry, run = Retry(backoff=0), Flaky(ConnectionError("reset"))
    server = _server(retry, run, annotations=None)
    assert server.catalog.entries["flaky"].chain == ()
    assert (await server.call_tool("flaky")).is_error
    assert run.attempts == 1 and retry.retries == 0


async def test_only_safe_false_retries_any_selected_tool() -> None:
    retry, run = Retry(backoff=0, only_safe=False), Flaky(ConnectionError())
    assert not (await _server(retry, run, annotations=None).call_tool("flaky")).is_error
    assert run.attempts == 2


@pytest.mark.parametrize(
    "error",
    [
        ToolError("no"),
        InvalidArguments("flaky", [ArgumentProblem("x", "bad")]),
        Rejected("slow down"),
        ToolTimeout("flaky", 1),
    ],
    ids=["ToolError", "InvalidArguments", "Rejected", "ToolTimeout"],
)
async def test_tool_errors_and_timeouts_are_never_retried(error: Exception) -> None:
    retry, run = Retry(backoff=0), Flaky(error)
    result = await _server(retry, run).call_tool("flaky")
    assert result.is_error and run.attempts == 1 and retry.retries == 0


async def test_upstream_errors_are_retried_unless_turned_off() -> None:
    on, run_on = Retry(backoff=0), Flaky(UpstreamError("gone"))
    off, run_off = Retry(backoff=0, retry_upstream=False), Flaky(UpstreamError("gone"))
    assert not (await _server(on, run_on).call_tool("flaky")).is_error
    assert (await _server(off, run_off).call_tool("flaky")).is_error
    assert (run_on.attempts, run_off.attempts) == (2, 1)


async def test_error_results_are_answers_not_failures() -> None:
    attempts = 0

    async def answer(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        nonlocal attempts
        attempts += 1
        return ToolResult.error("not found")

    retry = Retry(backoff=0)
    server = Server("answers", middleware=[retry])
    server.add_tool(Tool(name="find", input_schema={"type": "object"}, run=answer, annotations=IDEMPOTENT))
    assert (await server.call_tool("find")).is_error
    assert attempts == 1


async def test_the_last_error_is_raised_after_all_attempts() -> None:
    retry, run = Retry(attempts=2, backoff=0), Flaky(*(ConnectionError(f"try {n}") for n in range(5)))
    server = Server("last", middleware=[retry], mask_error_details=False)
    server.add_tool(Tool(name="flaky", input_schema={"type": "object"}, run=run, annotations=IDEMPOTENT))
    assert (await server.call_tool("flaky")).text == "ConnectionError: try 1"
    assert run.attempts == 2


async def test_no_retry_waits_past_the_deadline() -> None:
    retry, run = Retry(backoff=60), Flaky(ConnectionError())
    server = _server(retry, run)
    ctx = Context(server=server, deadline=anyio.current_time() + 1)
    with anyio.fail_after(5):
        assert (await server.call_tool("flaky", ctx=ctx)).is_error
    assert run.attempts == 1


def test_backoff_doubles_up_to_the_cap_with_jitter_below_it() -> None:
    retry = Retry(attempts=5, backoff=1, max_backoff=3, jitter=0.5)
    assert [retry.delay(n, rand=1.0) for n in (1, 2, 3)] == [1, 2, 3]
    assert retry.delay(2, rand=0.0) == 1.0


@pytest.mark.parametrize("options", [{"attempts": 0}, {"jitter": 2}, {"jitter": "a"}, {"backoff": -1}])
def test_bad_settings_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="Retry"):
        Retry(**options)


@pytest.mark.parametrize("retry_on", [5, (), (ValueError, "x")])
def test_retry_on_that_is_no_exception_class_is_refused_when_made(retry_on: Any) -> None:
    """It was accepted, then failed at a tool's first failure as a masked internal error."""
    with pytest.raises(TypeError, match="Retry retry_on takes an exception class"):
        Retry(retry_on=retry_on)


async def test_each_attempt_gets_the_arguments_as_the_client_sent_them() -> None:
    """An attempt that appended to a list it was given handed the change to the next one."""
    seen: list[list[int]] = []
    server = Server("retry", middleware=[Retry(attempts=3, backoff=0)])

    @server.tool(annotations={"idempotentHint": True})
    def flaky(items: list[int]) -> str:
        seen.append(list(items))
        items.append(99)
        if len(seen) < 3:
            raise RuntimeError("transient")
        return "done"

    result = await server.call_tool("flaky", {"items": [1]})
    assert not result.is_error and seen == [[1], [1], [1]]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_retried_call_never_sends_its_client_progress_that_goes_back(mode: str) -> None:
    """MCP: each progress value must be above the last; a retry starting over from 10 sent 30, then 10."""
    server = Server("retry", middleware=[Retry(attempts=2, backoff=0)])

    @server.tool(annotations={"idempotentHint": True})
    async def flaky(ctx: Context) -> str:
        for value in (10, 20, 30):
            await ctx.report_progress(value, 30)
        if not ctx.state.setdefault("failed once", False):
            ctx.state["failed once"] = True
            raise ConnectionError("reset")
        return "done"

    received: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        received.append(value)

    async with connect(server, mode=mode) as client:
        result = await client.call_tool("flaky", {}, progress_callback=progress)
    assert result.content[0].text == "done"
    assert received == [10, 20, 30]
