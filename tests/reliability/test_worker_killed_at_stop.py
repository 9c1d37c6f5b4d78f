"""A worker of `serve --workers` still running 5 s past its grace period is killed, and the
parent says so: it was killed without a word, its upstreams left unclosed and its tasks unrecorded."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.serving import toolweave_started

from .cli import terminate

pytestmark = pytest.mark.timeout(120)

HANGS_AT_EXIT = """
import atexit, sys, time
from toolweave import Server

if "--reuse-port" in sys.argv:  # a worker: its exit hangs (a library's exit handler waiting on something)
    atexit.register(time.sleep, 60)
server = Server("hangs")
"""


async def test_a_worker_killed_past_the_grace_period_is_named(tmp_path: Path) -> None:
    (tmp_path / "hangs.py").write_text(HANGS_AT_EXIT)
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: hangs:server\n")
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        process, _ = await toolweave_started(config, "--workers", "2", "--grace", "0", stderr=stderr)
        terminate(process)
        with anyio.fail_after(30):
            status = await process.wait()
    said = log.read_text()
    assert status == 0
    assert "worker 1 of 2 (pid " in said and "had not stopped 5s after it was asked to: killing it" in said
