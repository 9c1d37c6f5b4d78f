"""SIGTERM on `toolweave serve --legacy-sse` while a legacy SSE client holds its stream: the
stream ends with the drain, the process exits 0, and uvicorn reports no cancelled application
(the stream used to be left open until uvicorn's own timeout cancelled it, with a traceback)."""

from __future__ import annotations

import os
import signal
import tempfile

import anyio
from mcp import ClientSession
from mcp.client.sse import sse_client

from tests.serving import toolweave_started

from .cli import GATEWAY


async def test_an_open_legacy_sse_stream_ends_cleanly_at_shutdown() -> None:
    with tempfile.TemporaryFile() as log:
        process, url = await toolweave_started(GATEWAY, "--legacy-sse", "--grace", "1", stderr=log)
        try:
            async with (
                sse_client(f"{url}/sse") as (read, write),
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
