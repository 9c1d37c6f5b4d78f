"""Test helper: an `mcp.Client` on a server that counts the `tools/list_changed` it receives."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as mt

from toolweave import Server
from toolweave.testing import connect


class Changes:
    """How many `list_changed` notifications arrived; `wait_for(n)` blocks until n have."""

    def __init__(self) -> None:
        self.count = 0
        self._event = anyio.Event()

    def hit(self) -> None:
        event, self._event = self._event, anyio.Event()
        self.count += 1
        event.set()

    async def wait_for(self, count: int) -> None:
        with anyio.fail_after(5):
            while self.count < count:
                await self._event.wait()


@asynccontextmanager
async def watched(server: Server, mode: str) -> AsyncIterator[tuple[Any, Changes]]:
    """A client in `mode` ("auto" listens with subscriptions/listen, "legacy" on the connection)."""
    changes = Changes()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            changes.hit()

    async with connect(server, mode=mode, message_handler=on_message) as client:
        if mode == "legacy":
            yield client, changes
            return
        async with client.listen(tools_list_changed=True) as subscription, anyio.create_task_group() as tasks:

            async def pump() -> None:
                async for _ in subscription:
                    changes.hit()

            tasks.start_soon(pump)
            yield client, changes
            tasks.cancel_scope.cancel()


async def names(client: Any) -> list[str]:
    """The tool names a client lists."""
    return [tool.name for tool in (await client.list_tools()).tools]
