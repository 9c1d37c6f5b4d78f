"""`toolweave serve --workers N` passes the serving options each worker needs: `--grace` (the
workers used their default 10 s) and `--watch` (ignored without a word), and a stop asked for
while the workers still start is a clean stop."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from anyio.abc import Process
from mcp import Client

from tests.conftest import free_port, subprocess_env
from tests.serving import toolweave_announced

from .cli import descendants, living, serve_http, terminate, zombies
from .http import call
from .raw import SERVERS

SHUTTING_DOWN = -32000


async def stopped_during_a_call(grace: str, seconds: float, stop: Callable[[Process], None]) -> tuple[int, Any]:
    """`serve --workers 2 --grace GRACE`, stopped with `stop` a moment into a call of `seconds`:
    the server's exit status and the call's answer."""
    process, url = await serve_http("--grace", grace, "--workers", "2")
    async with httpx2.AsyncClient(timeout=30) as client:
        answers = {}

        async def run() -> None:
            answers["call"] = await call(client, url, "local_sleep", {"seconds": seconds})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run)
            await anyio.sleep(1.0)  # the call is under way in a worker
            stop(process)
    with anyio.fail_after(15):
        status = await process.wait()
    return status, answers["call"]


async def test_the_workers_keep_the_grace_period_given() -> None:
    status, answer = await stopped_during_a_call("1", 60, terminate)
    assert status == 0
    assert answer["error"]["code"] == SHUTTING_DOWN
    assert "grace period 1s" in answer["error"]["message"]


async def test_a_stop_sent_to_the_whole_process_group_keeps_the_grace_period() -> None:
    """Ctrl-C in a terminal, `kill -- -PGID` and systemd's stop reach every worker, and the
    parent forwards the stop as well: one stop, heard twice, is not a second signal that would
    cut the grace period short."""

    def stop_the_group(process: Process) -> None:
        os.killpg(process.pid, signal.SIGTERM)  # (the server runs in a session of its own)

    status, answer = await stopped_during_a_call("10", 2, stop_the_group)
    assert status == 0
    assert answer["result"]["content"][0]["text"] == "slept 2.0"


async def test_the_workers_stop_when_their_parent_is_killed() -> None:
    """A parent killed with SIGKILL (or by the OOM killer) cannot stop its workers: they served on
    alone, holding the port with the config they started with."""
    process, _ = await serve_http("--workers", "2", "--grace", "1")
    workers = descendants(process.pid)
    try:
        terminate(process, signal.SIGKILL)
        await process.wait()
        with anyio.fail_after(30):
            while [pid for pid in living(workers) if pid not in zombies()]:  # noqa: ASYNC110 - other processes
                await anyio.sleep(0.1)
    finally:
        for pid in living(workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_what_the_workers_write_to_stdout_reaches_the_parents_stdout(tmp_path: Path) -> None:
    """The parent reads its workers' stdout for their ready line, and dropped every other line:
    a tool's `print`, or logs a library writes there, came out of a single `serve` but not of
    `serve --workers`."""
    (tmp_path / "loud.py").write_text(
        "from toolweave import Server\nserver = Server('loud')\n\n"
        "@server.tool\ndef shout(text: str) -> str:\n    print('printed', text, flush=True)\n    return text\n"
    )
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: loud:server\n")
    with tempfile.TemporaryFile("w+") as out:
        with toolweave_announced(config, "--workers", "2", stdout=out) as (url, _):
            for number in range(4):  # (each session reaches either worker)
                async with Client(url) as client:
                    await client.call_tool("shout", {"text": str(number)})
        out.seek(0)
        printed = sorted(line for line in out.read().splitlines() if line.startswith("printed"))
    assert printed == ["printed 0", "printed 1", "printed 2", "printed 3"]


async def test_the_workers_serve_on_when_nothing_reads_the_parents_stdout(tmp_path: Path) -> None:
    """Passing the workers' lines on must not stop draining their pipes: a parent whose stdout's
    reader is gone stopped reading, and a worker printing 64 KB more blocked for good."""
    (tmp_path / "loud.py").write_text(
        "from toolweave import Server\nserver = Server('loud')\n\n"
        "@server.tool\ndef shout(size: int) -> int:\n    print('x' * size, flush=True)\n    return size\n"
    )
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: loud:server\n")
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "w") as unread, toolweave_announced(config, "--workers", "2", stdout=unread) as (url, _):
        with anyio.fail_after(60):
            async with Client(url) as client:  # one session: one worker
                for _ in range(4):
                    await client.call_tool("shout", {"size": 100_000})


async def test_the_workers_reload_an_edited_config_with_watch(tmp_path: Path) -> None:
    shutil.copy(SERVERS / "target.py", tmp_path / "target.py")
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: target:server\n    prefix: local\n")
    with toolweave_announced(config, "--workers", "2", "--watch") as (url, _):
        async with Client(url) as client:
            before = [tool.name for tool in (await client.list_tools()).tools]
        config.write_text("python:\n  - import: target:server\n    prefix: edited\n")
        edited_in_a_row = 0
        with anyio.fail_after(30):
            while edited_in_a_row < 6:  # a new session may reach either worker: both have reloaded
                await anyio.sleep(0.2)
                async with Client(url) as client:
                    after = [tool.name for tool in (await client.list_tools()).tools]
                edited = bool(after) and all(name.startswith("edited_") for name in after)
                edited_in_a_row = edited_in_a_row + 1 if edited else 0
    assert before and all(name.startswith("local_") for name in before)


async def test_a_stop_while_the_workers_start_exits_cleanly(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(  # builds at once in the parent, in 30 s in a worker
        "import sys, time\nfrom toolweave import Server\n"
        "if '--reuse-port' in sys.argv:\n    time.sleep(30)\nserver = Server('slow')\n"
    )
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: slow:server\n")
    serve = ["serve", str(config), "--transport", "http", "--port", str(free_port()), "--workers", "2"]
    process = await anyio.open_process(
        [sys.executable, "-m", "toolweave.cli", *serve, "--grace", "1"],
        cwd=tmp_path,
        env=subprocess_env(PYTHON=sys.executable),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    with anyio.fail_after(15):
        while len(descendants(process.pid)) < 2:  # noqa: ASYNC110 - other processes: none is ready for 30 s
            await anyio.sleep(0.1)
    terminate(process)
    with anyio.fail_after(15):
        status = await process.wait()
    assert status == 0
