"""`toolweave serve --transport http --workers 2`: two processes on one port sharing one rate limit in Redis."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import subprocess_env
from tests.serving import toolweave_announced
from tests.store.redis_server import RedisServer

pytestmark = pytest.mark.timeout(240)  # two worker processes start on a loaded machine


TOOLS = '''
import os
from toolweave import Server

server = Server("pids")

@server.tool
def pid() -> int:
    """The serving process."""
    return os.getpid()

@server.tool
def limited() -> str:
    """Rate-limited."""
    return "ok"
'''


def config(tmp_path: Path, redis: RedisServer, burst: int) -> Path:
    (tmp_path / "pid_tools.py").write_text(TOOLS)
    path = tmp_path / "gw.yaml"
    path.write_text(
        f"server: {{name: gw, store: {{url: '{redis.url}', timeout: 2}}}}\n"
        "python: ['pid_tools:server']\n"
        f"middleware:\n  rate_limit: {{rate: 0.001, burst: {burst}, tools: limited}}\n"
    )
    return path


@pytest.fixture
def two_workers(tmp_path: Path, redis: RedisServer) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    with toolweave_announced(config(tmp_path, redis, burst=6), "--workers", "2") as served:
        yield served


async def test_two_workers_serve_one_port_and_share_one_rate_limit(two_workers: tuple[str, object]) -> None:
    url, _ = two_workers
    pids: set[int] = set()
    limited = []
    for _ in range(20):
        async with Client(url) as client:  # a new connection each time: the kernel spreads them
            pids.add((await client.call_tool("pid", {})).structured_content["result"])
            limited.append(await client.call_tool("limited", {}))
    assert len(pids) == 2
    assert [result.is_error for result in limited].count(False) == 6
    assert all("Rate limit exceeded for tool 'limited'" in result.content[0].text for result in limited[6:])


async def test_handshake_era_clients_are_served_without_sessions_by_workers(two_workers: tuple[str, object]) -> None:
    url, _ = two_workers
    for _ in range(4):  # each session's requests go out on several connections, so to both workers
        async with Client(url, mode="legacy") as client:
            results = [await client.call_tool("pid", {}) for _ in range(5)]
        assert not any(result.is_error for result in results)


def test_stopping_the_parent_stops_every_worker(two_workers: tuple[str, subprocess.Popen[str]]) -> None:
    _, parent = two_workers
    children = subprocess.run(
        ["pgrep", "-P", str(parent.pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert len(children) == 2
    parent.terminate()
    assert parent.wait(timeout=30) == 0
    still = [pid for pid in children if Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)]
    assert still == []


def _state(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return "Z"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "--workers runs several HTTP servers on one port: add --transport http"),
        (["--transport", "http", "--legacy-sse"], "--legacy-sse streams and their posted messages must reach one"),
    ],
    ids=["stdio", "legacy-sse"],
)
def test_workers_refuse_what_needs_one_process(
    tmp_path: Path, redis: RedisServer, flags: list[str], message: str
) -> None:
    command = [sys.executable, "-m", "toolweave", "serve", str(config(tmp_path, redis, 1)), "--workers", "2", *flags]
    done = subprocess.run(command, capture_output=True, text=True, env=subprocess_env(), timeout=60, check=False)
    assert done.returncode == 2
    assert message in " ".join(done.stderr.split())


def test_each_startup_warning_is_printed_once_not_once_per_worker(tmp_path: Path) -> None:
    (tmp_path / "echo_tools.py").write_text("def echo(text: str) -> str:\n    return text\n")
    path = tmp_path / "gw.yaml"
    path.write_text("python:\n  - {import: 'echo_tools:echo', tools: {echo: {args: {text: {inject: env:UNSET_X}}}}}\n")
    command = [sys.executable, "-m", "toolweave", "serve", str(path), "--transport", "http", "--port", "0"]
    command += ["--workers", "2"]
    before = []  # the workers print their warnings before they listen; the URL is printed once all do
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=subprocess_env()) as process:
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("Serving"):
                break
            before.append(line)
        process.terminate()
    assert [line for line in before if "UNSET_X" in line] == [
        "warning: environment variable UNSET_X is not set: calls to 'echo' will fail\n"
    ]


def test_a_worker_that_dies_is_named_with_its_signal_before_the_others_are_stopped(tmp_path: Path) -> None:
    """The parent said nothing of which worker ended or how, and exited 247 (-9 as a byte)."""
    (tmp_path / "pid_tools.py").write_text(TOOLS)
    path = tmp_path / "gw.yaml"
    path.write_text("python: ['pid_tools:server']\n")
    command = [sys.executable, "-m", "toolweave", "serve", str(path), "--transport", "http", "--port", "0"]
    with subprocess.Popen(
        [*command, "--workers", "2"], stderr=subprocess.PIPE, text=True, env=subprocess_env()
    ) as parent:
        assert parent.stderr is not None
        for line in parent.stderr:  # the URL is announced once every worker listens
            if line.startswith("Serving"):
                break
        workers = subprocess.run(["pgrep", "-P", str(parent.pid)], capture_output=True, text=True, check=False)
        victim = int(workers.stdout.split()[0])
        os.kill(victim, signal.SIGKILL)
        after = parent.stderr.read()
        status = parent.wait(timeout=60)
    said = re.search(rf"ERROR toolweave.workers: worker [12] of 2 \(pid {victim}\) (.*)\n", after)
    assert said is not None and said.group(1) == "was killed by signal SIGKILL; stopping the others"
    assert said.start() < after.index("received SIGTERM")  # then the other worker was stopped
    assert status == 128 + signal.SIGKILL
