"""SIGHUP on `toolweave serve` (a closed terminal, a dropped SSH session) stops it as SIGTERM does:
its default action ended the process at once, the calls in flight unanswered and, under
`--workers`, the parent before its workers."""

from __future__ import annotations

import os
import signal

import anyio
import httpx2
import pytest

from .cli import serve_http, serve_stdio, terminate
from .http import call

pytestmark = pytest.mark.timeout(120)  # worker processes start on a loaded machine


async def test_a_hangup_lets_the_stdio_call_in_flight_finish_and_exits_0() -> None:
    raw = await serve_stdio("--grace", "10")
    await raw.call(1, "local_sleep", {"seconds": 1.5})
    await anyio.sleep(0.5)  # the call is running
    terminate(raw.process, signal.SIGHUP)
    answer = await raw.receive(within=15)
    with anyio.fail_after(15):
        status = await raw.process.wait()
    assert answer["id"] == 1 and answer["result"]["content"][0]["text"] == "slept 1.5"
    assert status == 0


@pytest.mark.parametrize("workers", ["1", "2"])
async def test_a_hangup_of_the_process_group_lets_the_http_call_in_flight_finish_and_exits_0(workers: str) -> None:
    """The terminal's hangup reaches the whole process group: the server, and each worker."""
    process, url = await serve_http("--grace", "10", "--workers", workers)
    answers = {}
    async with httpx2.AsyncClient(timeout=30) as client:

        async def run() -> None:
            answers["call"] = await call(client, url, "local_sleep", {"seconds": 2})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run)
            await anyio.sleep(1.0)  # the call is under way
            os.killpg(process.pid, signal.SIGHUP)  # (the server runs in a session of its own)
    with anyio.fail_after(20):
        status = await process.wait()
    assert answers["call"]["result"]["content"][0]["text"] == "slept 2.0"
    assert status == 0
