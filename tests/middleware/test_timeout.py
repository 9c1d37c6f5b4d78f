"""`Timeout`: deadlines, cancellation of async tools, abandoned sync threads, `ToolTimeout` results."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref

import anyio
import anyio.lowlevel
import anyio.to_thread
import pytest

from toolweave import Context, Server
from toolweave.core.deadlines import abandoned_tasks, watchdog
from toolweave.middleware import Retry, Timeout
from toolweave.middleware import timeout as timeout_module
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
    timeout = Timeout(default=0.5)  # (long enough for the worker thread to start on a loaded machine)
    server = Server("sync", middleware=[timeout])

    @server.tool
    def blocking() -> str:
        release.wait(10)
        finished.set()
        return "late result"

    result = await server.call_tool("blocking")
    assert result.is_error and "timed out after 0.5s" in result.text
    assert timeout.abandoned_threads == 1
    release.set()
    await anyio.to_thread.run_sync(finished.wait, 5)
    assert timeout.abandoned_threads == 1


@pytest.mark.parametrize("bad", [0, -1, "5", float("nan")])
def test_bad_limits_are_refused_with_a_clear_error(bad: object) -> None:
    with pytest.raises(ValueError, match="Timeout default"):
        Timeout(default=bad)  # type: ignore[arg-type]


def _stubborn_server(timeout: Timeout, release: threading.Event, ended: list[str]) -> Server:
    server = Server("stubborn", middleware=[timeout])

    @server.tool
    async def shielded() -> str:
        """Ignores cancellation until released."""
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(release.wait, 10)
        ended.append("shielded")
        return "late"

    @server.tool
    async def blocks_in_a_thread() -> str:
        """Awaits a thread it cannot interrupt (anyio's default: the await is not cancellable)."""
        await anyio.to_thread.run_sync(release.wait, 10)
        ended.append("blocks_in_a_thread")
        return "late"

    @server.tool
    async def ping() -> str:
        return "pong"

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("tool", ["shielded", "blocks_in_a_thread"])
async def test_a_client_gets_tool_timeout_at_the_deadline_even_when_the_tool_ignores_cancellation(
    mode: str, tool: str
) -> None:
    release, ended = threading.Event(), []
    timeout = Timeout(default=0.2)
    server = _stubborn_server(timeout, release, ended)
    try:
        async with connect(server, mode=mode) as client:
            started = anyio.current_time()
            with anyio.fail_after(5):
                result = await client.call_tool(tool, {})
            assert anyio.current_time() - started < 0.2 + 0.05  # the deadline, then GRACE to end
            assert result.is_error
            assert result.content[0].text == f"Tool '{tool}' timed out after 0.2s"
            assert ended == []  # answered while the tool was still running
            assert timeout.abandoned_tasks == timeout.abandoned == 1
            assert abandoned_tasks() == 1
            assert (await client.call_tool("ping", {})).content[0].text == "pong"
            release.set()
            with anyio.fail_after(5):
                while abandoned_tasks():  # the straggler ends on its own; its result is dropped  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            assert ended == [tool]
    finally:
        release.set()
    assert timeout.timeouts == 1


async def test_in_process_calls_wait_for_a_tool_that_ignores_cancellation_unless_asked() -> None:
    release, ended = threading.Event(), []
    timeout = Timeout(default=0.05)
    server = _stubborn_server(timeout, release, ended)
    threading.Timer(0.3, release.set).start()
    result = await server.call_tool("shielded")  # the caller's own task: the tool ends first
    assert ended == ["shielded"]
    assert result.is_error and "timed out after 0.05s" in result.text
    release.clear()
    threading.Timer(2, release.set).start()
    hard = Context(server=server, hard_deadline=True)
    with anyio.fail_after(1):
        result = await server.call_tool("shielded", ctx=hard)
    assert result.is_error and ended == ["shielded"] and timeout.abandoned_tasks == 1


async def test_a_finished_call_leaves_nothing_registered_with_the_watchdog() -> None:
    server, _ = _server(Timeout(default=30))
    for _ in range(100):
        await server.call_tool("quick")
    dog = watchdog()
    assert dog is not None and dog.pending() == 0


class _Marker:
    """Something weakly referenceable to put in a request's state."""


@pytest.mark.parametrize("hard_deadline", [False, True])
async def test_a_finished_call_keeps_no_reference_to_its_context(hard_deadline: bool) -> None:
    server, _ = _server(Timeout(default=30))
    ctx = Context(server=server, hard_deadline=hard_deadline)
    ctx.state["marker"] = marker = _Marker()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(anyio.sleep, 10)  # an earlier timer: the loop's heap keeps what is behind it
        await anyio.lowlevel.checkpoint()  # the sleeper starts
        await server.call_tool("quick", ctx=ctx)
        await anyio.lowlevel.checkpoint()  # let the loop run the finished task's callbacks
        ref = weakref.ref(marker)
        del ctx, marker
        assert ref() is None  # freed by reference counting: no timer or watch holds the request
        tasks.cancel_scope.cancel()


async def test_a_request_finished_behind_a_longer_call_keeps_no_reference_to_its_context() -> None:
    """A deadline queued behind a call still running (same limit, registered earlier) stays in the
    watchdog's queue until that call ends; it must not keep the finished request (its task, its
    result, its `Context`) alive meanwhile."""
    server, _ = _server(Timeout(default=30))
    release = anyio.Event()

    @server.tool
    async def held() -> str:
        await release.wait()
        return "released"

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: server.call_tool("held", ctx=Context(server=server, hard_deadline=True)))
        await anyio.sleep(0.01)  # `held` is running, its deadline first in the 30 s queue
        ctx = Context(server=server, hard_deadline=True)  # as a client's request: the call in a task of its own
        ctx.state["marker"] = marker = _Marker()
        await server.call_tool("quick", ctx=ctx)
        await anyio.lowlevel.checkpoint()  # let the loop run the finished task's callbacks
        ref = weakref.ref(marker)
        del ctx, marker
        gc.collect()
        assert ref() is None  # nothing queued behind `held` holds the finished request
        release.set()


async def test_the_timer_is_armed_for_the_earliest_deadline_whatever_the_order() -> None:
    timeout = Timeout(default=5, per_tool={"slow": 0.05})
    server, seen = _server(timeout)

    async def long_then_short() -> None:
        with anyio.fail_after(3):
            result = await server.call_tool("slow")  # 0.05 s, registered after a 5 s deadline
        assert result.is_error and seen["finally"] is True

    other = Server("other", middleware=[Timeout(default=5)])

    @other.tool
    async def wait() -> str:
        await anyio.sleep(0.5)
        return "done"

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(other.call_tool, "wait")
        await anyio.sleep(0.01)
        await long_then_short()


async def test_a_tool_that_catches_the_cancellation_and_waits_again_is_cancelled_again() -> None:
    timeout = Timeout(default=0.05)
    server = Server("stubborn", middleware=[timeout])
    attempts: list[str] = []

    @server.tool
    async def retries_its_wait() -> str:
        for _ in range(3):
            try:
                await anyio.sleep(30)
            except anyio.get_cancelled_exc_class():
                attempts.append("cancelled")
        return "late"

    with anyio.fail_after(5):
        result = await server.call_tool("retries_its_wait")
    assert result.is_error and "timed out after 0.05s" in result.text
    assert attempts == ["cancelled"] * 3
    await anyio.sleep(0.01)  # the caller's task is not left cancelled


async def test_a_shield_around_the_call_does_not_stop_its_own_deadline() -> None:
    server, seen = _server(Timeout(default=0.05))
    with anyio.fail_after(5), anyio.CancelScope(shield=True):
        result = await server.call_tool("slow")
    assert result.is_error and seen["finally"] is True


async def test_an_outer_cancellation_during_the_call_propagates_and_is_no_timeout() -> None:
    timeout = Timeout(default=30)
    server, seen = _server(timeout)
    with anyio.fail_after(5), anyio.move_on_after(0.05) as outer:
        await server.call_tool("slow")
    assert outer.cancelled_caught and seen["finally"] is True
    assert timeout.timeouts == 0


async def test_an_outer_cancellation_after_the_deadline_still_propagates() -> None:
    timeout = Timeout(default=0.02)
    server = Server("cleanup", middleware=[timeout])

    @server.tool
    async def slow_cleanup() -> str:
        try:
            await anyio.sleep(30)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.1)  # the outer scope's deadline passes meanwhile
        return "done"

    with anyio.fail_after(5), anyio.move_on_after(0.05) as outer:
        await server.call_tool("slow_cleanup")
        await anyio.sleep(5)  # not reached when the outer cancellation propagates
    assert outer.cancelled_caught


async def test_a_nested_in_process_call_is_cancelled_at_the_deadline_not_masked() -> None:
    inner = Server("inner")
    steps: list[str] = []

    @inner.tool
    async def sleeper() -> str:
        try:
            await anyio.sleep(30)
        finally:
            steps.append("inner finally")
        return "late"

    outer = Server("outer", middleware=[Timeout(default=0.05)])

    @outer.tool
    async def delegate() -> str:
        result = await inner.call_tool("sleeper")
        steps.append(f"inner answered: {result.text}")
        return result.text

    with anyio.fail_after(5):
        result = await outer.call_tool("delegate")
    assert result.is_error and "timed out after 0.05s" in result.text
    assert steps == ["inner finally"]


async def test_calls_in_the_callers_task_use_the_watchdogs_native_deadline() -> None:
    dog = watchdog()  # anyio's task records are where `TaskDeadline` reads its shields
    assert dog is not None and dog.native


@pytest.mark.parametrize("native", [True, False])
async def test_the_scoped_fallback_keeps_the_same_behaviour(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    dog = watchdog()
    assert dog is not None
    monkeypatch.setattr(dog, "native", native)
    timeout = Timeout(default=0.05)
    server, seen = _server(timeout)
    with anyio.fail_after(5):
        result = await server.call_tool("slow")
    assert result.is_error and seen["finally"] is True and timeout.timeouts == 1
    assert (await server.call_tool("quick")).structured_content["result"] is not None


async def test_a_tool_with_a_task_group_has_its_children_cancelled_at_the_deadline() -> None:
    server = Server("fan_out", middleware=[Timeout(default=0.05)])
    ended: list[str] = []

    async def child(name: str) -> None:
        try:
            await anyio.sleep(30)
        finally:
            ended.append(name)

    @server.tool
    async def fans_out() -> str:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(child, "a")
            tasks.start_soon(child, "b")
            await anyio.sleep(30)
        return "late"

    with anyio.fail_after(5):
        result = await server.call_tool("fans_out")
    assert result.is_error and "timed out after 0.05s" in result.text
    assert sorted(ended) == ["a", "b"]


async def test_a_tools_own_shorter_deadline_is_its_own_business() -> None:
    timeout = Timeout(default=5)
    server = Server("inner_deadline", middleware=[timeout])

    @server.tool
    async def gives_up_early() -> str:
        with anyio.move_on_after(0.02):
            await anyio.sleep(30)
        return "gave up"

    with anyio.fail_after(5):
        result = await server.call_tool("gives_up_early")
    assert result.text == "gave up" and timeout.timeouts == 0


async def test_a_hard_deadline_call_cancelled_by_its_caller_is_cancelled_and_leaves_no_unseen_error() -> None:
    timeout = Timeout(default=30)
    server = Server("cancelled", middleware=[timeout])
    ended: list[str] = []

    @server.tool
    async def fails_when_cancelled() -> str:
        try:
            await anyio.sleep(30)
        finally:
            ended.append("cleanup")
            raise RuntimeError("cleanup failed")  # what the cancelled task ends with
        return "never"

    loop = asyncio.get_running_loop()
    unseen: list[dict[str, object]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: unseen.append(context))
    try:
        hard = Context(server=server, hard_deadline=True)
        with anyio.fail_after(5), anyio.move_on_after(0.05) as caller:
            await server.call_tool("fails_when_cancelled", ctx=hard)
        del hard
        gc.collect()  # a task whose exception nobody read reports it when it is collected
    finally:
        loop.set_exception_handler(previous)
    assert caller.cancelled_caught and ended == ["cleanup"]
    assert timeout.timeouts == 0 and timeout.abandoned == 0
    assert unseen == []


async def test_a_hard_deadline_answers_at_the_deadline_and_the_tools_finally_runs() -> None:
    timeout = Timeout(default=0.05)
    server, seen = _server(timeout)
    started = anyio.current_time()
    with anyio.fail_after(5):
        result = await server.call_tool("slow", ctx=Context(server=server, hard_deadline=True))
    assert result.is_error and result.text == "Tool 'slow' timed out after 0.05s"
    assert anyio.current_time() - started < 0.05 + 0.05
    assert seen["finally"] is True and timeout.timeouts == 1 and timeout.abandoned == 0


def _loop_blocking_server(timeout: Timeout) -> Server:
    server = Server("blocking", middleware=[timeout])

    @server.tool
    async def sleeps_on_the_loop() -> str:
        time.sleep(0.15)  # noqa: ASYNC251 - blocks the loop: the watchdog's timer cannot run meanwhile
        return "late"

    @server.tool(run_in_thread=False)
    def sync_on_the_loop() -> str:
        time.sleep(0.15)
        return "late"

    return server


LOOP_BLOCKERS = ["sleeps_on_the_loop", "sync_on_the_loop"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("tool", LOOP_BLOCKERS)
async def test_a_client_gets_tool_timeout_from_a_tool_that_blocked_the_loop_past_its_deadline(
    mode: str, tool: str
) -> None:
    timeout = Timeout(default=0.05)
    async with connect(_loop_blocking_server(timeout), mode=mode) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error and result.content[0].text == f"Tool '{tool}' timed out after 0.05s"
    assert timeout.timeouts == 1 and timeout.abandoned == 0


@pytest.mark.parametrize("path", ["in the callers task", "hard deadline", "scoped fallback", "anyio deadline"])
@pytest.mark.parametrize("tool", LOOP_BLOCKERS)
async def test_a_late_value_from_a_tool_that_blocked_the_loop_is_discarded_in_process(
    path: str, tool: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    dog = watchdog()
    assert dog is not None
    if path == "scoped fallback":
        monkeypatch.setattr(dog, "native", False)
    if path == "anyio deadline":
        monkeypatch.setattr(timeout_module, "watchdog", lambda: None)
    timeout = Timeout(default=0.05)
    server = _loop_blocking_server(timeout)
    result = await server.call_tool(tool, ctx=Context(server=server, hard_deadline=path == "hard deadline"))
    assert result.is_error and result.text == f"Tool '{tool}' timed out after 0.05s"
    assert timeout.timeouts == 1 and timeout.abandoned == 0


async def test_a_mounted_childs_timeout_names_the_tool_the_client_called() -> None:
    """The child's own `Timeout` named its inner tool ("Tool 'slow' timed out"): the client
    called `up_slow`, and that is the name it must read."""
    child = Server("child", middleware=[Timeout(0.05)])

    @child.tool
    async def slow() -> str:
        await anyio.sleep(5)
        return "done"

    gateway = Server("gateway")
    gateway.mount(child, prefix="up")
    async with connect(gateway) as client:
        result = await client.call_tool("up_slow", {})
    assert result.is_error and result.content[0].text == "Tool 'up_slow' timed out after 0.05s"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_call_abandoned_at_its_deadline_is_not_retried_by_a_retry_inside_the_timeout(mode: str) -> None:
    """The abandoned call saw `ctx.deadline` given back to the caller (none): `Retry` inside kept
    calling a tool whose client had its timeout long ago, four more times."""
    attempts = 0
    server = Server("timeouts", middleware=[Timeout(default=0.05), Retry(attempts=5, backoff=0.01)])

    @server.tool(annotations={"idempotentHint": True})
    async def stubborn() -> str:
        nonlocal attempts
        attempts += 1
        with anyio.CancelScope(shield=True):
            await anyio.sleep(0.1)
        raise ConnectionError("upstream down")

    async with connect(server, mode=mode) as client:
        result = await client.call_tool("stubborn", {})
        assert result.content[0].text == "Tool 'stubborn' timed out after 0.05s"
        with anyio.fail_after(5):
            while abandoned_tasks():  # the abandoned call ends on its own  # noqa: ASYNC110
                await anyio.sleep(0.01)
    assert attempts == 1


async def test_a_call_abandoned_at_its_deadline_sends_no_progress_for_the_request_it_answered() -> None:
    """MCP: progress stops when the request completes. The abandoned call ran on with the
    request's progress sink, and the client got progress for a request it had its answer to
    (a 2026-07-28 client hands it on; the handshake-era client drops it unseen)."""
    server, release = Server("progress", middleware=[Timeout(default=0.1)]), anyio.Event()

    @server.tool
    async def stubborn(ctx: Context) -> str:
        await ctx.report_progress(1, 3, "started")
        with anyio.CancelScope(shield=True):
            await release.wait()
            await ctx.report_progress(2, 3, "still going")
        return "late"

    received: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        received.append(progress)

    before = abandoned_tasks()
    async with connect(server) as client:
        result = await client.call_tool("stubborn", {}, progress_callback=on_progress)
        release.set()
        with anyio.fail_after(5):
            while abandoned_tasks() > before:  # the abandoned call reported and ended  # noqa: ASYNC110
                await anyio.sleep(0.01)
        await client.list_tools()  # anything it sent has arrived before this answer
    assert result.is_error and received == [1]
