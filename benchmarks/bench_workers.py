"""HTTP calls per second from `toolweave serve --transport http` with 1 and 2 workers.

Each server is a real `toolweave serve` process tree (a config with one `echo` tool) on its own
port; the load is `wrk` (C, one thread, 32 connections, keep-alive) sending the same stateless
2026-era `tools/call` POST, so the load generator costs a fraction of a core. The servers run
side by side and are measured in alternating rounds (1 worker, then 2, then 1 ...): the median
of the rounds is reported. A third server runs 2 workers whose `RateLimit` is shared in a local
`redis-server` (`server.store`), to show what sharing costs over HTTP. Needs `wrk`
(`apt-get install wrk`) and, for the third row, `redis-server`; rows without them say so.
On a 2-core machine the load generator and the workers share the cores: the target is 1.7 times the 1-worker figure.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import anyio.to_thread

from benchmarks.redis_process import free_port, redis_url
from benchmarks.timing import Row

GROUP = "HTTP calls/s (stateless tools/call, wrk -c32)"
ROOT = Path(__file__).resolve().parent.parent

TOOLS = """
from toolweave import Server
server = Server("echo")

@server.tool
def echo(text: str) -> str:
    return text
"""

BODY = (
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'
    '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},'
    '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"0"}}}}'
)
SCRIPT = f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
wrk.body = '{BODY}'
"""


@contextmanager
def served(workdir: Path, workers: int, store: str | None = None) -> Iterator[str]:
    """A `toolweave serve` with `workers` processes; its URL once it answers."""
    config = workdir / f"w{workers}{'r' if store else ''}.yaml"
    lines = ["server: {name: bench" + (f", store: '{store}'" if store else "") + "}", "python: ['echo_tools:server']"]
    if store:
        lines.append("middleware: {rate_limit: {rate: 1000000000, burst: 1000000000, key: global}}")
    config.write_text("\n".join(lines) + "\n")
    port = free_port()
    command = [sys.executable, "-m", "toolweave", "serve", str(config), "--transport", "http", "--port", str(port)]
    command += ["--workers", str(workers), "--limit-concurrency", "10000"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if re.search(r"Serving .* at http", line):
                break
        else:
            raise RuntimeError(f"toolweave serve --workers {workers} did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=60)
        if process.stderr is not None:
            process.stderr.close()


def load(url: str, script: Path, seconds: int) -> float:
    """Requests per second `wrk` got from `url` in `seconds`."""
    done = subprocess.run(
        ["wrk", "-t1", "-c32", f"-d{seconds}s", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 60,
    )
    if "Non-2xx" in done.stdout:
        raise RuntimeError(f"wrk saw errors from {url}:\n{done.stdout}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", done.stdout).group(1))  # type: ignore[union-attr]


def measure(quick: bool) -> list[Row]:
    if shutil.which("wrk") is None:
        return [Row(GROUP, "1 worker", 0.0, note="wrk not installed (apt-get install wrk)", unit="/s")]
    rounds, seconds = (1, 2) if quick else (5, 5)
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        workdir = Path(tmp)
        (workdir / "echo_tools.py").write_text(TOOLS)
        script = workdir / "call.lua"
        script.write_text(SCRIPT)
        url = stack.enter_context(redis_url())
        servers = {
            "1 worker": stack.enter_context(served(workdir, 1)),
            "2 workers": stack.enter_context(served(workdir, 2)),
        }
        if url is not None:
            servers["2 workers, RateLimit in Redis"] = stack.enter_context(served(workdir, 2, url))
        for target in servers.values():
            load(target, script, 1)  # warm up
        figures: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(rounds):
            for name, target in servers.items():
                figures[name].append(load(target, script, seconds))
    rows = []
    for name, values in figures.items():
        baseline = None if name == "1 worker" else "1 worker"
        target = "≥ 1.7×" if name == "2 workers" else ""
        rows.append(Row(GROUP, name, statistics.median(values), baseline=baseline, target=target, unit="/s"))
    if url is None:
        rows.append(Row(GROUP, "2 workers, RateLimit in Redis", 0.0, note="redis-server not installed", unit="/s"))
    return rows


async def collect(quick: bool) -> list[Row]:
    return await anyio.to_thread.run_sync(measure, quick)
