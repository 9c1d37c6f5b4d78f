"""One server used from several threads, each running its own event loop (sync code in a pool)."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from tests.conftest import subprocess_env
from toolweave import Server, ToolAnnotations, ToolResult
from toolweave.middleware import Cache, ConcurrencyLimit
from toolweave.server.remote import RemoteServer

UPSTREAMS = Path(__file__).parent / "upstreams"
THREADS = 4


def in_threads(server: Server, name: str, arguments: dict[str, Any], calls: int = 10) -> list[ToolResult]:
    """`calls` calls of `name` from each of `THREADS` threads, each in an event loop of its own."""

    def thread() -> list[ToolResult]:
        async def run() -> list[ToolResult]:
            with anyio.fail_after(10):
                return [await server.call_tool(name, arguments) for _ in range(calls)]

        return anyio.run(run)

    with ThreadPoolExecutor(THREADS) as pool:
        return [result for results in pool.map(lambda _: thread(), range(THREADS)) for result in results]


def test_local_tools_answer_calls_from_threads_with_loops_of_their_own() -> None:
    server = Server("local")

    @server.tool
    async def add(a: int, b: int) -> int:
        await anyio.sleep(0.001)
        return a + b

    results = in_threads(server, "add", {"a": 1, "b": 2})
    assert [result.text for result in results] == ["3"] * THREADS * 10


def test_a_cache_answers_calls_from_threads_with_loops_of_their_own() -> None:
    """Calls waiting for the same result on another loop run their own (single flight is per loop)."""
    server = Server("cached", middleware=[Cache(ttl=60)])

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def slow(key: str) -> str:
        await anyio.sleep(0.05)
        return f"value of {key}"

    results = in_threads(server, "slow", {"key": "k"}, calls=3)
    assert [(result.is_error, result.text) for result in results] == [(False, "value of k")] * THREADS * 3


def test_a_concurrency_limit_holds_across_threads_with_loops_of_their_own() -> None:
    """A slot given back on one loop reaches a call waiting on another (it hung there)."""
    server = Server("bounded", middleware=[ConcurrencyLimit(2)])
    running = [0]
    most = [0]

    @server.tool
    async def work() -> str:
        running[0] += 1
        most[0] = max(most[0], running[0])
        await anyio.sleep(0.01)
        running[0] -= 1
        return "done"

    results = in_threads(server, "work", {}, calls=5)
    assert [result.text for result in results] == ["done"] * THREADS * 5
    assert most[0] <= 2


async def test_a_server_running_on_one_loop_refuses_a_remotes_use_from_another_naming_it() -> None:
    """A remote's session lives on the loop that started it: another loop is told so at once."""
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "tw_upstream.py")], env=subprocess_env())
    gateway = Server("gateway")
    gateway.mount(remote, prefix="up")

    async def from_another_loop() -> Any:
        with anyio.fail_after(10):
            return await gateway.call_tool("up_echo", {"text": "hi"})

    async with gateway:
        assert (await gateway.call_tool("up_echo", {"text": "hi"})).structured_content == {"echo": "hi"}
        with pytest.raises(RuntimeError, match=r"server 'gateway' runs on the event loop of another thread"):
            await anyio.to_thread.run_sync(anyio.run, from_another_loop)
