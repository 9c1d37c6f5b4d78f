"""`Fanout`: tell every replica of a server what changed, over Redis pub/sub.

`enable`, `disable` and `broadcast_changed` on one replica are announced on the server's channel;
every other replica applies them to its own server, whose clients then get `list_changed`. A
replica ignores its own announcements. Announcing never blocks a caller: messages go through a
small buffer to a publisher task (dropped, with a warning, when it is full or Redis is down).
The listener reconnects after an outage; what was announced while it was away is not replayed
(pub/sub keeps nothing), so during an outage each replica only changes itself.

Example:
    >>> from toolweave.store.redis_store import RedisStore
    >>> fanout = Fanout(RedisStore(), "toolweave:changes:gateway")
    >>> fanout.announce({"op": "changed"})   # not running: nothing to tell
    False
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from toolweave.store.base import StoreUnavailable, reason_of

if TYPE_CHECKING:
    from toolweave.store.redis_store import RedisStore

logger = logging.getLogger("toolweave.store")

Handler = Callable[[dict[str, Any]], None]


class Fanout:
    """Announcements between the replicas of one server.

    Args:
        store: The shared store.
        channel: The pub/sub channel (one per server name).
    """

    def __init__(self, store: RedisStore, channel: str, *, buffer: int = 100) -> None:
        self.store = store
        self.channel = channel
        self.origin = secrets.token_hex(8)
        self.buffer = buffer
        self._outbox: MemoryObjectSendStream[str] | None = None

    def announce(self, message: dict[str, Any]) -> bool:
        """Queue `message` for the other replicas; whether it was queued (only while running)."""
        outbox = self._outbox
        if outbox is None:
            return False
        try:
            outbox.send_nowait(json.dumps({**message, "origin": self.origin}))
        except anyio.WouldBlock:
            logger.warning("dropped a change announcement on %s: too many pending", self.channel)
            return False
        return True

    async def run(self, on_message: Handler, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Publish announcements and deliver the other replicas' until cancelled."""
        send, receive = anyio.create_memory_object_stream[str](self.buffer)
        self._outbox = send
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._publish, receive)
                await tasks.start(self._listen, on_message)
                task_status.started()
        finally:
            self._outbox = None
            send.close()

    async def _publish(self, outbox: Any) -> None:
        async with outbox:
            async for message in outbox:
                try:
                    await self.store.run(partial(_publish, channel=self.channel, message=message))
                except StoreUnavailable:
                    logger.warning("could not announce a change on %s: the store is unavailable", self.channel)

    async def _listen(self, on_message: Handler, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        started = lost = False
        while True:
            try:
                pubsub = self.store.client().pubsub()
                try:
                    with anyio.fail_after(self.store.timeout):
                        await pubsub.subscribe(self.channel)
                    if lost:
                        lost = False
                        logger.warning("change listener on %s is listening again", self.channel)
                    if not started:
                        started = True
                        task_status.started()
                    await self._deliver(pubsub, on_message)
                finally:
                    with anyio.CancelScope(shield=True), anyio.move_on_after(self.store.timeout):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]
            except Exception as error:  # the outage story: reconnect after a pause (logged once)
                if not lost:
                    lost = True
                    reason = reason_of(error)
                    logger.warning("change listener on %s lost the store (%s); retrying", self.channel, reason)
            if not started:  # do not hold the server's start on an unreachable store
                started = True
                task_status.started()
            await anyio.sleep(self.store.retry_after)

    async def _deliver(self, pubsub: Any, on_message: Handler) -> None:
        while True:
            raw = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if raw is None or raw.get("type") != "message":
                continue
            try:
                message = json.loads(raw["data"])
            except (TypeError, ValueError):
                logger.warning("ignored a malformed change announcement on %s", self.channel)
                continue
            if isinstance(message, dict) and message.get("origin") != self.origin:
                try:
                    on_message(message)
                except Exception:  # one bad message must not drop the subscription (and what follows)
                    logger.warning("ignored a change announcement on %s that could not be applied", self.channel)


async def _publish(client: Any, *, channel: str, message: str) -> Any:
    return await client.publish(channel, message)
