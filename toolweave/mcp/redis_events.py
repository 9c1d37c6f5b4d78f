"""`RedisEventStore`: resumable SSE streams whose events every replica can replay.

The SDK's `EventStore` interface. Each event gets an id `"<sequence>-<random>"` (not guessable
from another stream's ids); the events of a stream are kept in one sorted set, the newest
`max_events` of them, for the store's `event_ttl`. Streams are keyed by the session's scope
(`toolweave.mcp.event_scope`) as well as the stream id, and a replay answers only a request of
the same session, so one session's events never reach another's client. When Redis is unavailable an event is still
sent live (its id is then not replayable) and a replay sends nothing: a stream never breaks
because the store is down.

Example:
    >>> from toolweave.store import RedisStore
    >>> events = RedisEventStore(RedisStore(), max_events=500)
    >>> events.max_events
    500
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.types import JSONRPCMessage, jsonrpc_message_adapter

from toolweave.mcp.event_scope import scope_of_request
from toolweave.store.base import StoreUnavailable
from toolweave.store.scripts import STORE_EVENT

if TYPE_CHECKING:
    from toolweave.store.redis_store import RedisStore

logger = logging.getLogger("toolweave.store")


class RedisEventStore(EventStore):
    """Events of resumable SSE streams, in Redis.

    Args:
        store: The shared store.
        max_events: Events kept per stream (the oldest dropped first).
    """

    def __init__(self, store: RedisStore, *, max_events: int = 10_000) -> None:
        if max_events < 1:
            raise ValueError(f"max_events must be at least 1, not {max_events}")
        self.store = store
        self.max_events = max_events
        self._sequence = store.key("events", "seq")
        self._event_prefix = store.key("events", "id") + ":"
        self._ttl_ms = max(1, int(store.event_ttl * 1000))

    def _stream_key(self, scoped: str) -> str:
        return self.store.key("events", "stream", scoped)

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        """Keep `message` (None for a priming event) and return its new event id."""
        payload = "" if message is None else jsonrpc_message_adapter.dump_json(message, by_alias=True).decode()
        scoped = f"{scope_of_request()}:{stream_id}"
        keys = [self._sequence, self._stream_key(scoped)]
        args = [self._event_prefix, scoped, payload, secrets.token_hex(6), self.max_events, self._ttl_ms]
        store = self.store
        try:
            event_id = await store.run(lambda client: store.script(STORE_EVENT)(keys=keys, args=args, client=client))
        except StoreUnavailable:
            return f"unstored-{secrets.token_hex(8)}"
        return _text(event_id)

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        """Send the kept events of `last_event_id`'s stream that came after it; its stream id."""
        sequence, _, _ = last_event_id.partition("-")
        if not sequence.isdigit():
            return None
        store = self.store
        name = self._event_prefix + last_event_id
        try:
            stream = await store.run(lambda client: client.get(name))
            if stream is None:
                return None
            scoped = _text(stream)
            scope, _, stream_id = scoped.partition(":")
            if scope != scope_of_request():  # another session's event id: nothing to replay
                return None
            key = self._stream_key(scoped)
            rows = await store.run(lambda client: client.zrangebyscore(key, f"({sequence}", "+inf"))
        except StoreUnavailable:
            logger.warning("could not replay events after %r: the store is unavailable", last_event_id)
            return None
        for row in rows:
            event_id, _, payload = _text(row).partition(" ")
            if payload:
                await send_callback(EventMessage(jsonrpc_message_adapter.validate_json(payload), event_id))
        return stream_id


def _text(value: object) -> str:
    """A reply from Redis as text."""
    return value.decode() if isinstance(value, bytes) else str(value)
