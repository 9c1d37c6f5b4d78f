"""SIGTERM while `toolweave serve` still starts (an upstream connecting) unwinds the start as
Ctrl-C does: it ended the process at once with status -15 and left the upstream process it was
starting running, in a session of its own that a supervisor's group kill does not reach."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import free_port, subprocess_env

from .cli import descendants, living, terminate

pytestmark = pytest.mark.timeout(120)

SLOW_UPSTREAM = "import time\ntime.sleep(120)\n"
"""An upstream that takes two minutes before it speaks (a package being downloaded, an image pulled)."""


def command_line(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


@pytest.mark.parametrize("workers", ["1", "2"])
async def test_sigterm_while_an_upstream_starts_closes_it_and_exits_0(tmp_path: Path, workers: str) -> None:
    (tmp_path / "slow_upstream.py").write_text(SLOW_UPSTREAM)
    config = tmp_path / "gateway.yaml"
    config.write_text("mcpServers:\n  slow:\n    command: ${PYTHON}\n    args: [slow_upstream.py]\n    cwd: .\n")
    serve = ["serve", str(config), "--transport", "http", "--port", str(free_port()), "--workers", workers]
    process = await anyio.open_process(
        [sys.executable, "-m", "toolweave.cli", *serve],
        cwd=tmp_path,
        env=subprocess_env(PYTHON=sys.executable),
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    started: list[int] = []
    try:
        with anyio.fail_after(60):
            while len(started) < int(workers):  # one upstream per worker
                await anyio.sleep(0.1)
                started = [pid for pid in descendants(process.pid) if "slow_upstream.py" in command_line(pid)]
        terminate(process)
        with anyio.fail_after(30):
            status = await process.wait()
        with anyio.move_on_after(10):  # the upstreams are closed as the start unwinds
            while living(started):  # noqa: ASYNC110 - other processes
                await anyio.sleep(0.1)
        assert (status, living(started)) == (0, [])
        assert process.stderr is not None
        said = b"".join([chunk async for chunk in process.stderr]).decode()  # (it has ended: all of it)
        assert "received SIGTERM while starting: stopping" in said
    finally:
        for pid in living([*started, *descendants(process.pid)]):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if process.returncode is None:
            process.kill()
            await process.wait()
