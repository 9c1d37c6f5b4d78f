"""SIGTERM on `toolweave serve --legacy-sse` while a legacy SSE client holds its stream: the
stream ends with the drain, the process exits 0, and uvicorn reports no cancelled application
(the stream used to be left open until uvicorn's own timeout cancelled it, with a traceback)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

import anyio
from mcp import ClientSession
from mcp.client.sse import sse_client

from tests.conftest import free_port, subprocess_env, wait_for_port

from .cli import GATEWAY


async def test_an_open_legacy_sse_stream_ends_cleanly_at_shutdown() -> None:
    port = free_port()
    with tempfile.TemporaryFile() as log:
        command = [sys.executable, "-m", "toolweave.cli", "serve", str(GATEWAY), "--transport", "http"]
        command += ["--port", str(port), "--legacy-sse", "--grace", "1"]
        process = await anyio.open_process(
            command,
            env=subprocess_env(PYTHON=sys.executable),
            stderr=log,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            await anyio.to_thread.run_sync(wait_for_port, port)
            async with (
                sse_client(f"http://127.0.0.1:{port}/sse") as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                echoed = await session.call_tool("local_echo", {"text": "hi"})
                os.kill(process.pid, signal.SIGTERM)
                with anyio.fail_after(15):
                    status = await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        log.seek(0)
        stderr = log.read().decode(errors="replace")
    assert echoed.content[0].text == "hi"
    assert status == 0
    assert "received SIGTERM" in stderr
    assert "Exception in ASGI application" not in stderr, stderr
    assert "without completing response" not in stderr, stderr
