"""`MemoryEventStore`: resumable SSE streams (end to end: the conformance suite's server-sse-polling)."""

from __future__ import annotations

import mcp.types as mt
import pytest
from mcp.server.streamable_http import EventMessage

from toolweave.mcp.events import MemoryEventStore


def note(n: int) -> mt.JSONRPCNotification:
    return mt.JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"n": n})


async def replayed(store: MemoryEventStore, last_event_id: str) -> tuple[str | None, list[str]]:
    sent: list[EventMessage] = []

    async def send(event: EventMessage) -> None:
        sent.append(event)

    stream = await store.replay_events_after(last_event_id, send)
    return stream, [event.event_id or "" for event in sent]


async def test_replay_sends_the_later_events_of_the_same_stream_only() -> None:
    store = MemoryEventStore()
    priming = await store.store_event("a", None)
    first = await store.store_event("a", note(1))
    await store.store_event("b", note(2))
    third = await store.store_event("a", note(3))
    assert await replayed(store, priming) == ("a", [first, third])
    assert await replayed(store, first) == ("a", [third])


async def test_an_unknown_or_evicted_event_id_replays_nothing() -> None:
    store = MemoryEventStore(max_events=2)
    oldest = await store.store_event("a", note(1))
    await store.store_event("a", note(2))
    newest = await store.store_event("a", note(3))
    assert await replayed(store, oldest) == (None, [])
    assert await replayed(store, "no-such-id") == (None, [])
    assert await replayed(store, newest) == ("a", [])


def test_max_events_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_events must be at least 1"):
        MemoryEventStore(max_events=0)
