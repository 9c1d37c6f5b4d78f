"""A bounded in-memory event store: resumable SSE streams for handshake-era HTTP clients.

With an event store, each SSE stream of the streamable HTTP transport starts with a priming
event (and the `retry` interval, when one is set), every event gets an id, and a client that lost
its connection reconnects with `Last-Event-ID` and is sent what it missed. (The 2026-07-28
revision dropped resumability; 2026 clients are not affected.) Streams are kept per session
(`toolweave.mcp.event_scope`): a replay answers only a request of the session whose event it
names.

Example:
    >>> import anyio
    >>> from mcp.types import JSONRPCNotification
    >>> store = MemoryEventStore(max_events=1000)
    >>> async def missed() -> list[str]:  # a client that saw the first event reconnects with its id
    ...     first = await store.store_event("stream-1", None)  # the priming event
    ...     await store.store_event("stream-1", JSONRPCNotification(jsonrpc="2.0", method="notifications/progress"))
    ...     sent: list[str] = []
    ...     async def send(event):
    ...         sent.append(event.event_id)
    ...     await store.replay_events_after(first, send)
    ...     return sent
    >>> anyio.run(missed)
    ['2']
    >>> server.run("http", event_store=store, retry_interval=1000)  # serves until interrupted  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.types import JSONRPCMessage

from toolweave.mcp.event_scope import scope_of_request


class MemoryEventStore(EventStore):
    """Keeps the last `max_events` events of all streams in memory (oldest dropped first).

    Args:
        max_events: How many events to keep; a client that reconnects after more than this many
            newer events is replayed nothing (it gets what is still kept from its stream).
    """

    def __init__(self, max_events: int = 10_000) -> None:
        if max_events < 1:
            raise ValueError(f"max_events must be at least 1, not {max_events}")
        self.max_events = max_events
        self._events: OrderedDict[str, tuple[str, str, JSONRPCMessage | None]] = OrderedDict()
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        """Keep `message` (None for a priming event) and return its new event id."""
        event_id = str(next(self._ids))
        self._events[event_id] = (scope_of_request(), stream_id, message)
        while len(self._events) > self.max_events:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        """Send the kept events of `last_event_id`'s stream that came after it; its stream id."""
        found = self._events.get(last_event_id)
        if found is None or found[0] != scope_of_request():
            return None
        scope, stream_id, _ = found
        after = int(last_event_id)
        for event_id, (owner, stream, message) in list(self._events.items()):
            if owner == scope and stream == stream_id and int(event_id) > after and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id
