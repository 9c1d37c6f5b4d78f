"""Soak: calls without pause while the upstream crashes on a schedule; memory stays flat.

The default run is bounded (20 s, a crash every 5 s); `pytest -m slow` runs 10 minutes with a
crash every minute (`TOOLWEAVE_SOAK_SECONDS` changes the length)."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections import Counter
from typing import Any

import anyio
import pytest

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.testing import connect

from .measure import FIGURES, rss_kib
from .raw import SERVERS


async def soak(seconds: float, crash_every: float) -> dict[str, Any]:
    remote = RemoteServer.stdio(
        sys.executable, [str(SERVERS / "target.py")], env=subprocess_env(), backoff=Backoff(initial=0.05, maximum=0.5)
    )
    root = Server("soak")
    root.add_tool(lambda text: text, name="local_echo")
    root.mount(remote, prefix="up")
    outcomes: Counter[str] = Counter()
    samples: list[tuple[float, int]] = []
    async with connect(root, mode="legacy") as client:
        start = time.monotonic()
        next_crash = start + crash_every
        crashes = 0
        while (now := time.monotonic()) - start < seconds:
            for name in ("local_echo", "up_echo"):
                result = await client.call_tool(name, {"text": "x"})
                outcomes[f"{name}: {'error' if result.is_error else 'ok'}"] += 1
            if now >= next_crash:
                pid = await client.call_tool("up_pid", {})
                if not pid.is_error:
                    os.kill(int(pid.content[0].text), signal.SIGKILL)
                    crashes += 1
                next_crash += crash_every
                samples.append((now - start, rss_kib()))
        with anyio.fail_after(15):
            await remote.wait_connected()
        final = await client.call_tool("up_echo", {"text": "after"})
        outcomes[f"final: {'error' if final.is_error else 'ok'}"] += 1
    first, last = samples[0], samples[-1]
    per_minute = (last[1] - first[1]) / max((last[0] - first[0]) / 60, 1e-9)
    return {"outcomes": outcomes, "crashes": crashes, "KiB per minute": round(per_minute), "samples": samples}


async def test_a_short_soak_with_crashes_keeps_serving() -> None:
    found = await soak(20, crash_every=5)
    outcomes = found["outcomes"]
    assert outcomes["local_echo: error"] == 0 and outcomes["local_echo: ok"] > 100
    assert found["crashes"] >= 1 and outcomes["up_echo: ok"] > 0 and outcomes["final: ok"] == 1
    FIGURES["20 s soak, crash every 5 s: outcomes, KiB/min"] = (dict(outcomes), found["KiB per minute"])


@pytest.mark.slow
@pytest.mark.timeout(3600)
async def test_a_long_soak_with_a_crash_every_minute_grows_under_1_mb_per_minute() -> None:
    found = await soak(float(os.environ.get("TOOLWEAVE_SOAK_SECONDS", "600")), crash_every=60)
    assert found["outcomes"]["local_echo: error"] == 0 and found["outcomes"]["final: ok"] == 1
    assert found["KiB per minute"] < 1024
    FIGURES["long soak, crash every minute: outcomes, KiB/min"] = (dict(found["outcomes"]), found["KiB per minute"])
