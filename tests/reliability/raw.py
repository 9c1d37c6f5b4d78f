"""A raw line-level stdio client: writes exact bytes, reads each answer line as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.conftest import subprocess_env

SERVERS = Path(__file__).parent / "servers"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


class RawStdio:
    """A stdio server process and the lines it writes."""

    def __init__(self, process: Process) -> None:
        self.process = process
        assert process.stdout is not None and process.stdin is not None
        self._out = BufferedByteReceiveStream(process.stdout)

    @classmethod
    async def start(cls, script: str = "target.py", *args: str) -> RawStdio:
        process = await anyio.open_process(
            [sys.executable, str(SERVERS / script), *args], env=subprocess_env(), stderr=subprocess.DEVNULL
        )
        return await cls.started(process)

    @classmethod
    async def started(cls, process: Process) -> RawStdio:
        """`process`, a stdio server, after the handshake."""
        raw = cls(process)
        await raw.send(json.dumps(INITIALIZE).encode())
        assert (await raw.receive())["id"] == 0
        await raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        return raw

    async def call(self, request_id: int, name: str, arguments: dict[str, Any]) -> None:
        """Send a `tools/call` (the answer is read with `answers_until`)."""
        params = {"name": name, "arguments": arguments}
        await self.send(
            json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()
        )

    async def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(line + b"\n")

    async def receive(self, within: float = 10) -> dict[str, Any]:
        with anyio.fail_after(within):
            line = await self._out.receive_until(b"\n", 64 * 1024 * 1024)
        return json.loads(line)

    async def answers_until(self, request_id: int) -> list[dict[str, Any]]:
        """Every message written up to and including the answer to `request_id`."""
        seen = []
        while True:
            message = await self.receive()
            seen.append(message)
            if message.get("id") == request_id and "method" not in message:
                return seen

    async def close(self) -> int:
        assert self.process.stdin is not None
        await self.process.stdin.aclose()
        with anyio.fail_after(10):
            return await self.process.wait()
