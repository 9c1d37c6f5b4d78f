"""`RedisEventStore`: resumable-SSE events that any replica can replay; an outage never breaks a stream."""

from __future__ import annotations

from collections.abc import AsyncIterator

import mcp.types as mt
import pytest
from mcp.server.streamable_http import EventMessage, EventStore

from tests.conftest import free_port
from tests.store.redis_server import RedisServer
from toolweave.mcp.redis_events import RedisEventStore
from toolweave.store import RedisStore


def note(n: int) -> mt.JSONRPCNotification:
    return mt.JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"n": n})


async def replayed(store: EventStore, last_event_id: str) -> tuple[str | None, list[tuple[str, object]]]:
    sent: list[EventMessage] = []

    async def send(event: EventMessage) -> None:
        sent.append(event)

    stream = await store.replay_events_after(last_event_id, send)
    return stream, [(event.event_id or "", event.message.params) for event in sent]  # type: ignore[union-attr]


@pytest.fixture
async def stores(redis: RedisServer) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    """Two replicas' stores on one Redis."""
    one, two = RedisStore(redis.url, timeout=5), RedisStore(redis.url, timeout=5)
    try:
        yield one, two
    finally:
        await one.close()
        await two.close()


async def test_events_stored_by_one_replica_are_replayed_by_another(stores: tuple[RedisStore, RedisStore]) -> None:
    writer, reader = RedisEventStore(stores[0]), RedisEventStore(stores[1])
    priming = await writer.store_event("a", None)
    first = await writer.store_event("a", note(1))
    await writer.store_event("b", note(2))
    third = await writer.store_event("a", note(3))
    assert await replayed(reader, priming) == ("a", [(first, {"n": 1}), (third, {"n": 3})])
    assert await replayed(reader, first) == ("a", [(third, {"n": 3})])


async def test_only_the_newest_max_events_of_a_stream_are_kept(stores: tuple[RedisStore, RedisStore]) -> None:
    events = RedisEventStore(stores[0], max_events=2)
    priming = await events.store_event("a", None)
    await events.store_event("a", note(1))
    second = await events.store_event("a", note(2))
    third = await events.store_event("a", note(3))
    assert await replayed(events, priming) == ("a", [(second, {"n": 2}), (third, {"n": 3})])


async def test_unknown_or_malformed_event_ids_replay_nothing(stores: tuple[RedisStore, RedisStore]) -> None:
    events = RedisEventStore(stores[0])
    await events.store_event("a", note(1))
    assert await replayed(events, "999-abc") == (None, [])
    assert await replayed(events, "not an id") == (None, [])


async def test_event_ids_are_not_guessable_from_another_streams_ids(stores: tuple[RedisStore, RedisStore]) -> None:
    events = RedisEventStore(stores[0])
    first = await events.store_event("a", note(1))
    sequence, _, suffix = first.partition("-")
    assert len(suffix) == 12
    assert await replayed(events, f"{int(sequence)}-{'0' * 12}") == (None, [])


async def test_while_redis_is_unreachable_events_still_get_ids_and_replays_send_nothing() -> None:
    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout=0.2)
    try:
        events = RedisEventStore(store)
        event_id = await events.store_event("a", note(1))
        assert event_id.startswith("unstored-")
        assert await replayed(events, "1-abcdefabcdef") == (None, [])
    finally:
        await store.close()


def test_max_events_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_events must be at least 1"):
        RedisEventStore(RedisStore(), max_events=0)
