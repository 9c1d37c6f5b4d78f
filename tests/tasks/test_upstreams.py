"""Tasks through a remote upstream: a toolweave server on stdio whose tool is task-capable.

Upstream sessions speak the 2025-11-25 handshake, where the tasks extension does not exist: the
gateway calls the upstream's tool as a plain call, inside a task of its own.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio

from tests.conftest import subprocess_env
from tests.tasks.servers import create, task_client, until
from toolweave import Server
from toolweave.server.remote import Backoff, RemoteServer

UPSTREAM = Path(__file__).parent / "upstreams" / "task_upstream.py"


def gateway(**options: object) -> Server:
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAM)], env=subprocess_env(), **options)  # type: ignore[arg-type]
    server = Server("gateway")
    server.mount(remote, prefix="up")
    return server


async def test_an_upstream_tool_keeps_its_task_support_at_the_gateway() -> None:
    server = gateway()
    async with task_client(server) as client:
        created = await create(client, "up_deploy", {"env": "staging"})
        done = await until(client, created.task_id, "completed")
        supports = {name: server.catalog.get(name).tool.task_support for name in ("up_deploy", "up_pid")}
    assert supports == {"up_deploy": "optional", "up_pid": "none"}
    assert done.result is not None and done.result["content"][0]["text"] == "deployed to staging"


async def test_an_upstream_killed_mid_task_ends_the_task_with_its_error() -> None:
    server = gateway(timeout=10, backoff=Backoff(initial=30))
    async with task_client(server) as client:
        pid = int((await client.call_tool("up_pid", {})).content[0].text)
        created = await create(client, "up_deploy", {"env": "prod", "seconds": 30})
        await anyio.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(10):
            done = await until(client, created.task_id, "completed", "failed")
    assert done.status == "completed" and done.result is not None and done.result["isError"] is True
    assert "upstream 'up' went away" in done.result["content"][0]["text"]
