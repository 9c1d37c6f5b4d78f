"""`--workers` passes on the serve flags each worker needs (`--watch`: every worker reloads the file),
and says what each worker keeps to itself without a shared store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import subprocess_env
from tests.serving import toolweave_announced
from tests.store.redis_server import RedisServer
from tests.store.test_workers import TOOLS, config

pytestmark = pytest.mark.timeout(240)  # two worker processes start on a loaded machine


async def test_every_worker_reloads_a_changed_file_under_watch(tmp_path: Path, redis: RedisServer) -> None:
    path = config(tmp_path, redis, burst=100)
    with toolweave_announced(path, "--workers", "2", "--watch") as (url, _):
        hidden = "python: [{import: 'pid_tools:server', exclude: [limited]}]"
        path.write_text(path.read_text().replace("python: ['pid_tools:server']", hidden))
        seen: dict[int, list[str]] = {}
        with anyio.fail_after(60):
            while len(seen) < 2 or any("limited" in names for names in seen.values()):
                async with Client(url) as client:  # a new connection each time: the kernel spreads them
                    pid = (await client.call_tool("pid", {})).structured_content["result"]
                    seen[pid] = [tool.name for tool in (await client.list_tools()).tools]
                await anyio.sleep(0.1)
    assert all(names == ["pid"] for names in seen.values())


def test_workers_without_a_shared_store_warn_that_tasks_are_per_worker(tmp_path: Path) -> None:
    (tmp_path / "pid_tools.py").write_text(TOOLS)
    path = tmp_path / "gw.yaml"
    path.write_text("server: {name: gw}\npython: ['pid_tools:server']\n")
    command = [sys.executable, "-m", "toolweave", "serve", str(path), "--transport", "http", "--port", "0"]
    process = subprocess.Popen([*command, "--workers", "2"], stderr=subprocess.PIPE, text=True, env=subprocess_env())
    told: list[str] = []
    try:
        assert process.stderr is not None
        for line in process.stderr:
            told.append(line)
            if "/mcp" in line:
                break
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()
    warning = " ".join(" ".join(told).split())
    assert "tasks" in warning and "not found" in warning and "server.store" in warning
