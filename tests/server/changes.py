"""Test helper: an `mcp.Client` on a server that counts the `list_changed` notifications it receives."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as mt

from toolweave import Server
from toolweave.testing import connect

NOTIFICATIONS: dict[str, type[Any]] = {
    "tools": mt.ToolListChangedNotification,
    "prompts": mt.PromptListChangedNotification,
    "resources": mt.ResourceListChangedNotification,
}


class Changes:
    """How many `list_changed` notifications arrived (`kinds`: of which lists); `wait_for(n)` blocks until n have."""

    def __init__(self) -> None:
        self.count = 0
        self.kinds: list[str] = []
        self._event = anyio.Event()

    def hit(self, kind: str = "tools") -> None:
        event, self._event = self._event, anyio.Event()
        self.count += 1
        self.kinds.append(kind)
        event.set()

    async def wait_for(self, count: int) -> None:
        with anyio.fail_after(5):
            while self.count < count:
                await self._event.wait()


@asynccontextmanager
async def watched(server: Server, mode: str, *kinds: str) -> AsyncIterator[tuple[Any, Changes]]:
    """A client in `mode` ("auto" listens with subscriptions/listen, "legacy" on the connection).

    It counts the `list_changed` of `kinds` ("tools", "prompts", "resources"; tools by default).
    """
    kinds = kinds or ("tools",)
    changes = Changes()

    async def on_message(message: Any) -> None:
        for kind in kinds:
            if isinstance(message, NOTIFICATIONS[kind]):
                changes.hit(kind)

    async with connect(server, mode=mode, message_handler=on_message) as client:
        if mode == "legacy":
            yield client, changes
            return
        flags = {f"{kind}_list_changed": True for kind in kinds}
        async with client.listen(**flags) as subscription, anyio.create_task_group() as tasks:

            async def pump() -> None:
                async for event in subscription:
                    changes.hit(_kind_of(event))

            tasks.start_soon(pump)
            yield client, changes
            tasks.cancel_scope.cancel()


async def names(client: Any) -> list[str]:
    """The tool names a client lists."""
    return [tool.name for tool in (await client.list_tools()).tools]


def _kind_of(event: Any) -> str:
    """The list a 2026-era change event is about (`ToolsListChanged` -> "tools")."""
    name = type(event).__name__.lower()
    return next((kind for kind in NOTIFICATIONS if name.startswith(kind)), "tools")
