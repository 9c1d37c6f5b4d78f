"""Helpers of the remote-component tests: the SDK upstream of `upstreams/sdk_components.py`
mounted under `up` in a gateway, and the official `mcp` client connected to it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.server.remote import RemoteServer
from toolweave.testing import connect

UPSTREAMS = Path(__file__).parent / "upstreams"


def sdk_upstream(*modes: str, **options: Any) -> RemoteServer:
    """`upstreams/sdk_components.py` as a stdio upstream, in `modes`."""
    script = [str(UPSTREAMS / "sdk_components.py"), *modes]
    return RemoteServer.stdio(sys.executable, script, env=subprocess_env(), **options)


def gateway(remote: RemoteServer) -> Server:
    """A gateway with `remote` mounted under `up`."""
    server = Server("gateway")
    server.mount(remote, prefix="up")
    return server


@asynccontextmanager
async def through_gateway(remote: RemoteServer, mode: str = "legacy", **options: Any) -> AsyncIterator[Any]:
    """An official `mcp` client of a gateway mounting `remote` under `up`."""
    async with connect(gateway(remote), mode=mode, **options) as client:
        yield client
