"""What `toolweave serve` writes to stderr when an upstream goes away: one line of its own, not
a library's tracebacks (the SDK's SSE client logged ~60 lines for each lost connection)."""

from __future__ import annotations

import signal
import sys
import tempfile
from pathlib import Path
from typing import IO

import anyio
from mcp import Client

from tests.serving import PORT, spawned, toolweave_started

UPSTREAMS = Path(__file__).resolve().parents[1] / "server" / "upstreams"


async def test_a_lost_sse_upstream_is_one_warning_without_tracebacks(tmp_path: Path) -> None:
    with spawned(sys.executable, str(UPSTREAMS / "ll_upstream.py"), "sse", PORT) as upstream:
        config = tmp_path / "gateway.yaml"
        config.write_text(f"mcpServers:\n  up:\n    url: {upstream.url}/sse\n    type: sse\n")
        with tempfile.TemporaryFile() as log:
            process, url = await toolweave_started(config, stderr=log)
            try:
                with anyio.fail_after(10):
                    while not await _upstream_listed(f"{url}/mcp"):  # noqa: ASYNC110 - another process
                        await anyio.sleep(0.1)
                upstream.process.kill()
                upstream.process.wait()
                with anyio.fail_after(10):
                    while b"the connection was lost" not in _read(log):  # noqa: ASYNC110 - another process writes it
                        await anyio.sleep(0.1)
                await anyio.sleep(0.5)  # what the SDK's reader logs comes with it
            finally:
                process.send_signal(signal.SIGTERM)
                with anyio.fail_after(15):
                    await process.wait()
            written = _read(log).decode()
    assert "Traceback" not in written
    assert "the connection was lost" in written


async def _upstream_listed(url: str) -> bool:
    async with Client(url) as client:
        return "echo" in [tool.name for tool in (await client.list_tools()).tools]


def _read(log: IO[bytes]) -> bytes:
    log.seek(0)
    return log.read()
