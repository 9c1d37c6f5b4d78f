"""`Timeout`: deadlines, cancellation of async tools, abandoned sync threads, `ToolTimeout` results."""

from __future__ import annotations

import threading

import anyio
import pytest

from toolweave import Context, Server
from toolweave.middleware import Timeout
from toolweave.testing import connect


def _server(timeout: Timeout) -> tuple[Server, dict[str, object]]:
    seen: dict[str, object] = {}
    server = Server("timeouts", middleware=[timeout])

    @server.tool
    async def slow(ctx: Context) -> str:
        seen["deadline"] = ctx.deadline
        try:
            await anyio.sleep(30)
        finally:
            seen["finally"] = True
        return "done"

    @server.tool
    async def quick(ctx: Context) -> float | None:
        return ctx.deadline

    return server, seen


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_timed_out_async_tool_runs_its_finally_and_the_client_gets_tool_timeout(mode: str) -> None:
    timeout = Timeout(default=0.05)
    server, seen = _server(timeout)
    async with connect(server, mode=mode) as client:
        with anyio.fail_after(5):  # the tool sleeps 30 s: only the timeout can end it this soon
            result = await client.call_tool("slow", {})
    assert result.is_error
    assert result.content[0].text == "Tool 'slow' timed out after 0.05s"
    assert seen["finally"] is True
    assert timeout.timeouts == 1


async def test_deadline_is_visible_in_the_context_and_restored_after() -> None:
    server, _ = _server(Timeout(default=10))
    ctx = Context(server=server)
    start = anyio.current_time()
    result = await server.call_tool("quick", ctx=ctx)
    assert start < result.structured_content["result"] <= anyio.current_time() + 10
    assert ctx.deadline is None


async def test_an_outer_tighter_deadline_is_kept() -> None:
    server, _ = _server(Timeout(default=10))
    outer = anyio.current_time() + 1
    result = await server.call_tool("quick", ctx=Context(server=server, deadline=outer))
    assert result.structured_content["result"] == outer


def test_per_tool_globs_win_over_the_default_and_none_exempts() -> None:
    timeout = Timeout(default=5, per_tool={"quick": None, "sl*": 1})
    server, _ = _server(timeout)
    entries = server.catalog.entries
    assert [layer.name for layer in entries["slow"].chain] == ["Timeout(1s)"]
    assert entries["quick"].handler is None


async def test_abandoned_sync_thread_is_counted_and_its_result_discarded() -> None:
    release = threading.Event()
    finished = threading.Event()
    timeout = Timeout(default=0.05)
    server = Server("sync", middleware=[timeout])

    @server.tool
    def blocking() -> str:
        release.wait(10)
        finished.set()
        return "late result"

    result = await server.call_tool("blocking")
    assert result.is_error and "timed out after 0.05s" in result.text
    assert timeout.abandoned_threads == 1
    release.set()
    await anyio.to_thread.run_sync(finished.wait, 5)
    assert timeout.abandoned_threads == 1


@pytest.mark.parametrize("bad", [0, -1, "5", float("nan")])
def test_bad_limits_are_refused_with_a_clear_error(bad: object) -> None:
    with pytest.raises(ValueError, match="Timeout default"):
        Timeout(default=bad)  # type: ignore[arg-type]
