"""Upstream faults: killed, stopped (SIGSTOP), garbage on stdout, HTTP 500, refused and slow.
Every call is bounded, the other mounts keep their latency, and crash/restart cycles leave no
zombie and no growth."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import MCPError

from tests.conftest import free_port, subprocess_env
from tests.serving import PORT, spawned
from toolweave import Server
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.testing import connect

from .cli import descendants, zombies
from .measure import FIGURES, Holdings, paired_latency, rss_kib, settle
from .raw import SERVERS

TIMEOUT = 1.0
BOUND = TIMEOUT + 5 + 3  # the remote's timeout, the SDK's bounded cancellation notice, slack


def stdio(script: str = "target.py", **options: Any) -> RemoteServer:
    options.setdefault("backoff", Backoff(initial=0.05, maximum=0.5))
    return RemoteServer.stdio(sys.executable, [str(SERVERS / script)], env=subprocess_env(), timeout=TIMEOUT, **options)


@pytest.fixture
def http_fault(request: pytest.FixtureRequest) -> Iterator[str]:
    with spawned(sys.executable, str(SERVERS / "http_faults.py"), request.param, PORT) as server:
        yield f"{server.url}/mcp"


@asynccontextmanager
async def gateway(**remotes: RemoteServer) -> AsyncIterator[Any]:
    root = Server("gateway")
    root.add_tool(lambda text: text, name="local_echo")
    for prefix, remote in remotes.items():
        root.mount(remote, prefix=prefix)
    async with connect(root, mode="legacy") as client:
        yield client


async def timed(client: Any, name: str, arguments: dict[str, Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await client.call_tool(name, arguments)
    return time.perf_counter() - start, result


async def pid(client: Any, prefix: str = "up") -> int:
    return int((await client.call_tool(f"{prefix}_pid", {})).content[0].text)


async def test_a_killed_upstream_fails_its_calls_at_once_and_comes_back() -> None:
    remote = stdio()
    async with gateway(up=remote) as client:
        victim = await pid(client)
        outcome: dict[str, Any] = {}

        async def long_call() -> None:
            outcome["seconds"], outcome["result"] = await timed(client, "up_sleep", {"seconds": 30})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(long_call)
            await anyio.sleep(0.3)
            os.kill(victim, signal.SIGKILL)
        with anyio.fail_after(15):
            await remote.wait_connected()
        again = await pid(client)
    assert outcome["result"].is_error and "went away" in outcome["result"].content[0].text
    assert outcome["seconds"] < BOUND
    assert again != victim
    FIGURES["killed upstream: the call in flight answered after (s)"] = round(outcome["seconds"], 3)


async def test_a_stopped_upstream_bounds_its_calls() -> None:
    async with gateway(up=stdio()) as client:
        stopped_pid = await pid(client)
        os.kill(stopped_pid, signal.SIGSTOP)
        try:
            async with anyio.create_task_group() as tasks:
                bounded: list[float] = []

                async def stuck() -> None:
                    seconds, result = await timed(client, "up_echo", {"text": "x"})
                    assert result.is_error
                    bounded.append(seconds)

                for _ in range(20):
                    tasks.start_soon(stuck)
        finally:
            os.kill(stopped_pid, signal.SIGCONT)
    assert len(bounded) == 20 and max(bounded) < BOUND
    FIGURES["stopped upstream (SIGSTOP): slowest of 20 calls answered after (s)"] = round(max(bounded), 3)


@asynccontextmanager
async def stopped(client: Any, waiting: Any) -> AsyncIterator[None]:
    """The upstream SIGSTOPped, with 20 calls to it left waiting; resumed afterwards."""
    victim = await pid(client)
    os.kill(victim, signal.SIGSTOP)
    try:
        for _ in range(20):
            waiting.start_soon(client.call_tool, "up_echo", {"text": "x"})
        yield
    finally:
        os.kill(victim, signal.SIGCONT)


@asynccontextmanager
async def killed(client: Any, waiting: Any) -> AsyncIterator[None]:
    """The upstream SIGKILLed (restarted after a backoff longer than the measurement)."""
    os.kill(await pid(client), signal.SIGKILL)
    await anyio.sleep(0.2)
    yield


@asynccontextmanager
async def garbage(client: Any, waiting: Any) -> AsyncIterator[None]:
    """An upstream printing garbage between its answers, called meanwhile."""
    for index in range(5):
        await client.call_tool("up_noisy", {"text": f"call {index}"})
    yield


@pytest.mark.parametrize(
    ("script", "fault"),
    [("target.py", stopped), ("target.py", killed), ("garbage.py", garbage)],
    ids=["stopped", "killed", "garbage"],
)
async def test_the_other_mounts_keep_their_latency_beside_a_faulty_upstream(script: str, fault: Any) -> None:
    """A local mount's median latency beside a faulty upstream, against the same gateway beside a
    healthy one, called in turn: within 20 % (the lowest ratio of three runs, so one burst of
    another process's load does not decide it)."""
    backoff = Backoff(initial=60)  # a killed upstream stays down while measured
    ratios = []
    async with (
        gateway(up=stdio(script, backoff=backoff)) as faulty,
        gateway(up=stdio(script, backoff=backoff)) as healthy,
        anyio.create_task_group() as waiting,
    ):
        async with fault(faulty, waiting):
            for _ in range(3):
                beside_fault, beside_healthy = await paired_latency(
                    lambda: faulty.call_tool("local_echo", {"text": "x"}),
                    lambda: healthy.call_tool("local_echo", {"text": "x"}),
                )
                ratios.append(beside_fault / beside_healthy)
        waiting.cancel_scope.cancel()
    assert min(ratios) <= 1.2, ratios
    FIGURES[f"local mount latency beside a {fault.__name__} upstream / beside a healthy one"] = round(min(ratios), 3)


async def test_garbage_on_an_upstreams_stdout_does_not_break_its_session(caplog: pytest.LogCaptureFixture) -> None:
    remote = stdio("garbage.py")
    async with gateway(up=remote) as client:
        results = [await client.call_tool("up_noisy", {"text": f"call {index}"}) for index in range(5)]
        local = await client.call_tool("local_echo", {"text": "fine"})
    assert [result.content[0].text for result in results] == [f"call {index}" for index in range(5)]
    assert local.content[0].text == "fine" and remote.state == "down"  # closed with the gateway
    skipped = [record for record in caplog.records if record.name == "mcp.client.stdio"]
    assert skipped, "each line that is not JSON-RPC is logged"
    assert all(record.levelname == "WARNING" and record.exc_info is None for record in skipped)  # no traceback
    assert {record.getMessage() for record in skipped} == {
        "upstream 'up' wrote a line to stdout that is not JSON-RPC: skipped"
    }
    assert "not json at all" not in caplog.text  # the line itself is not quoted


@pytest.mark.parametrize("http_fault", ["500"], indirect=True)
async def test_an_http_upstream_answering_500_fails_calls_at_once(http_fault: str) -> None:
    remote = RemoteServer.http(http_fault, timeout=TIMEOUT, connect_timeout=3, backoff=Backoff(initial=5))
    async with gateway(up=remote) as client:
        start = time.perf_counter()
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("up_anything", {})
        seconds = time.perf_counter() - start
        local = await client.call_tool("local_echo", {"text": "fine"})
        assert remote.state == "down" and "error response" in (remote.last_error or "")
    assert unknown.value.error.message == "Unknown tool: up_anything" and seconds < BOUND
    assert local.content[0].text == "fine"


@pytest.mark.parametrize(
    ("http_fault", "status"),
    [("500", "HTTP 500 Internal Server Error"), ("401", "HTTP 401 Unauthorized")],
    indirect=["http_fault"],
)
async def test_an_http_upstreams_refusal_says_its_status(http_fault: str, status: str) -> None:
    """The SDK says only "Server returned an error response": a wrong token and a broken server
    read the same unless the status is said."""
    remote = RemoteServer.http(http_fault, timeout=TIMEOUT, connect_timeout=3, backoff=Backoff(initial=5))
    async with gateway(up=remote):
        assert remote.state == "down"
        assert (remote.last_error or "").endswith(f"Server returned an error response (the upstream answered {status})")


async def test_a_refused_http_upstream_is_down_and_the_rest_serves() -> None:
    remote = RemoteServer.http(f"http://127.0.0.1:{free_port()}/mcp", connect_timeout=3, backoff=Backoff(initial=5))
    async with gateway(up=remote) as client:
        local = await client.call_tool("local_echo", {"text": "fine"})
        assert remote.state == "down" and "Connect" in (remote.last_error or "")
    assert local.content[0].text == "fine"


@pytest.mark.parametrize("http_fault", ["slow"], indirect=True)
async def test_a_slow_http_upstream_is_bounded_by_the_remote_timeout(http_fault: str) -> None:
    remote = RemoteServer.http(http_fault, timeout=TIMEOUT)
    async with gateway(up=remote) as client:
        seconds, result = await timed(client, "up_crawl", {"seconds": 30})
        quick = await client.call_tool("up_crawl", {"seconds": 0})
    assert result.is_error and "1s" in result.content[0].text and seconds < BOUND
    assert quick.content[0].text == "done"


async def crash_cycles(cycles: int) -> dict[str, Any]:
    remote = stdio()
    async with gateway(up=remote) as client:
        await pid(client)
        baseline, memory = Holdings.now(), rss_kib()
        pids = []
        for _ in range(cycles):
            victim = await pid(client)
            pids.append(victim)
            os.kill(victim, signal.SIGKILL)
            with anyio.fail_after(15):
                while (await client.call_tool("up_pid", {})).is_error:  # noqa: ASYNC110 - the upstream restarts
                    await anyio.sleep(0.02)
        settled, grown = await settle(baseline), rss_kib() - memory
        children = descendants(os.getpid())
    return {
        "distinct processes": len(set(pids)),
        "zombies": len([z for z in zombies() if z in children or z in pids]),
        "holdings": (baseline, settled),
        "growth KiB": grown,
    }


async def test_crash_restart_cycles_leave_no_zombie_and_no_growth() -> None:
    found = await crash_cycles(5)
    baseline, settled = found["holdings"]
    assert found["distinct processes"] == 5 and found["zombies"] == 0
    assert settled == baseline
    FIGURES["5 crash/restart cycles: zombies, memory growth (KiB)"] = (found["zombies"], found["growth KiB"])


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_100_crash_restart_cycles_leave_no_zombie_and_under_5_mb_growth() -> None:
    found = await crash_cycles(100)
    baseline, settled = found["holdings"]
    assert found["distinct processes"] == 100 and found["zombies"] == 0
    assert settled == baseline and found["growth KiB"] < 5 * 1024
    FIGURES["100 crash/restart cycles: zombies, memory growth (KiB)"] = (found["zombies"], found["growth KiB"])
