"""Client cancellation (`notifications/cancelled`) cancels the whole chain; the server keeps serving."""

from __future__ import annotations

import logging

import anyio
import anyio.to_thread
import pytest
from mcp import Client

from tests.serving import serving
from toolweave import Server
from toolweave.middleware import (
    Cache,
    CircuitBreaker,
    ConcurrencyLimit,
    Logging,
    Progress,
    RateLimit,
    Retry,
    Timeout,
)
from toolweave.testing import RecordingMiddleware, connect


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_cancelled_call_runs_finally_blocks_sends_nothing_and_the_server_keeps_serving(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    started, cleaned_up = anyio.Event(), anyio.Event()
    recorder = RecordingMiddleware("recorder")
    server = Server("cancel", middleware=[Logging(), recorder, Timeout(default=30), Progress()])

    @server.tool
    async def slow() -> str:
        started.set()
        try:
            await anyio.sleep(30)
        finally:
            cleaned_up.set()
        return "never"

    @server.tool
    async def ping() -> str:
        return "pong"

    async with connect(server, mode=mode) as client:
        with anyio.move_on_after(5) as client_side:
            async with anyio.create_task_group() as tasks:

                async def call_and_cancel() -> None:
                    await started.wait()
                    tasks.cancel_scope.cancel()  # the SDK client sends notifications/cancelled

                tasks.start_soon(call_and_cancel)
                await client.call_tool("slow", {})
        assert not client_side.cancelled_caught
        with anyio.fail_after(5):
            await cleaned_up.wait()
        assert (await client.call_tool("ping", {})).content[0].text == "pong"

    assert recorder.log[:2] == ["enter recorder", "exit recorder"]
    outcomes = [record.outcome for record in caplog.records if record.name == "toolweave.calls"]
    assert outcomes == ["cancelled", "ok"]


async def test_no_built_in_turns_a_cancellation_into_a_result() -> None:
    """A cancelled call produces no result at all, so the edge has nothing to answer with."""
    server = Server(
        "all",
        middleware=[
            Logging(),
            Timeout(default=30),
            Progress(heartbeat=0.01),
            Retry(only_safe=False, backoff=0),
            RateLimit(rate=100),
            ConcurrencyLimit(4),
            CircuitBreaker(),
            Cache(only_safe=False),
        ],
    )
    started = anyio.Event()

    @server.tool
    async def slow() -> str:
        started.set()
        await anyio.sleep(30)
        return "never"

    results = []
    async with anyio.create_task_group() as tasks:

        async def call() -> None:
            results.append(await server.call_tool("slow"))

        tasks.start_soon(call)
        await started.wait()
        tasks.cancel_scope.cancel()
    assert results == []


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_over_real_http_a_cancelled_call_is_cancelled_on_the_server(era: str) -> None:
    """2026 clients cancel by closing the response stream; handshake-era clients send the notification."""
    started, cleaned_up = anyio.Event(), anyio.Event()
    server = Server("http-cancel", middleware=[Logging(), Timeout(default=30)])

    @server.tool
    async def slow() -> str:
        started.set()
        try:
            await anyio.sleep(30)
        finally:
            cleaned_up.set()
        return "never"

    @server.tool
    async def ping() -> str:
        return "pong"

    async with serving(server.http_app()) as url, Client(f"{url}/mcp", mode=era) as client:
        async with anyio.create_task_group() as tasks:

            async def call_and_cancel() -> None:
                await started.wait()
                tasks.cancel_scope.cancel()

            tasks.start_soon(call_and_cancel)
            await client.call_tool("slow", {})
        with anyio.fail_after(5):
            await cleaned_up.wait()
        assert (await client.call_tool("ping", {})).content[0].text == "pong"
