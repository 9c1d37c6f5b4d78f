"""A shared store while a server runs: its change listener, and its connections closed at the end.

Example:
    >>> from toolweave.store import MemoryStore
    >>> class Noted(MemoryStore):
    ...     def enter(self):
    ...         print("entered")
    ...     async def leave(self):
    ...         print("left: the last server closes its connections")
    >>> async def main():
    ...     async with anyio.create_task_group() as tasks:
    ...         await tasks.start(hold_store, Noted(), None, print)
    ...         tasks.cancel_scope.cancel()
    >>> anyio.run(main)
    entered
    left: the last server closes its connections
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from toolweave.store.base import Store
from toolweave.store.fanout import Fanout


async def hold_store(
    store: Store,
    fanout: Fanout | None,
    on_message: Callable[[dict[str, Any]], None],
    *,
    task_status: Any = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run `fanout` (delivering other replicas' announcements to `on_message`) until cancelled."""
    store.enter()
    try:
        if fanout is None:
            task_status.started()
            await anyio.sleep_forever()
        else:
            await fanout.run(on_message, task_status=task_status)
    finally:
        await store.leave()
