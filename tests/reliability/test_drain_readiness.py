"""While `toolweave serve` drains, `/readyz` says so to a probe on a connection kept open (a
balancer's pooled health check): it answered "ready" while every new request was refused."""

from __future__ import annotations

import anyio
import httpx2
import pytest

from .cli import serve_http, terminate
from .http import call

pytestmark = pytest.mark.timeout(120)


async def test_readyz_answers_503_shutting_down_on_a_kept_connection_while_the_calls_in_flight_finish() -> None:
    process, url = await serve_http("--grace", "10")
    base = url.removesuffix("/mcp")
    answers = {}
    async with httpx2.AsyncClient(timeout=30) as probe, httpx2.AsyncClient(timeout=30) as client:
        before = await probe.get(f"{base}/readyz")  # opens the connection the probe keeps

        async def run() -> None:
            answers["call"] = await call(client, url, "local_sleep", {"seconds": 3})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run)
            await anyio.sleep(1.0)  # the call is under way
            terminate(process)
            await anyio.sleep(0.5)  # the drain has begun
            during = await probe.get(f"{base}/readyz")
            alive = await probe.get(f"{base}/healthz")
    with anyio.fail_after(20):
        status = await process.wait()
    assert before.status_code == 200
    assert (during.status_code, during.json()) == (503, {"status": "not ready", "reason": "shutting down"})
    assert alive.status_code == 200  # liveness: the process is not stuck, do not restart it
    assert answers["call"]["result"]["content"][0]["text"] == "slept 3.0"
    assert status == 0
