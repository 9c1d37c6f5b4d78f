"""Serve an ASGI app with uvicorn on a free loopback port for the length of a block.

`serving(app)` runs it in the test's own event loop (for use inside a test); `served(app)` runs
it in a thread with its own loop (for fixtures, whose setup and teardown run in different tasks).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import uvicorn

from tests.conftest import free_port, wait_for_port


def _server(app: Any, config: dict[str, Any]) -> tuple[uvicorn.Server, str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config))
    return server, f"http://127.0.0.1:{port}"


@asynccontextmanager
async def serving(app: Any, **config: Any) -> AsyncIterator[str]:
    """`http://127.0.0.1:<port>`, where `app` answers (in this event loop) until the block ends."""
    server, url = _server(app, config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.serve)
        with anyio.fail_after(20):
            while not server.started:  # uvicorn offers no event to wait on  # noqa: ASYNC110
                await anyio.sleep(0.01)
        try:
            yield url
        finally:
            server.should_exit = True


@contextmanager
def served(app: Any, **config: Any) -> Iterator[str]:
    """`http://127.0.0.1:<port>`, where `app` answers (in a thread of its own) until the block ends."""
    server, url = _server(app, config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for_port(int(url.rsplit(":", 1)[1]))
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
