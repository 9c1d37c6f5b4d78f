"""The circuit-state gauge of a replica sharing its circuit in Redis reports the state the replica
acts on (the shared one), not the one its own failures alone would give."""

from __future__ import annotations

import pytest

from tests.store.redis_server import RedisServer
from tests.store.replicas import Upstream, replica
from tests.telemetry.conftest import Metrics, install
from toolweave import Server
from toolweave.middleware import CircuitBreaker


@pytest.fixture
def recorded() -> Metrics:
    return Metrics(install().reader)


def state(recorded: Metrics, circuit: str) -> list[str]:
    """The states at 1 for `circuit` (one, when reported as a state set)."""
    states = ("closed", "open", "half_open")
    return [
        name
        for name in states
        if recorded.value("toolweave.circuit.state", **{"toolweave.circuit": circuit, "toolweave.circuit.state": name})
    ]


def failing_replicas(redis: RedisServer) -> tuple[Upstream, Server, Server]:
    """A failing upstream and two replicas sharing a circuit (2 failures open it) in Redis."""
    upstream = Upstream()
    upstream.failing = True
    one, two = (
        replica(redis.url, CircuitBreaker(failures=2, reset_after=60, label=f"replica {n}"), upstream=upstream)
        for n in ("one", "two")
    )
    return upstream, one, two


async def test_a_replica_refusing_because_the_shared_circuit_is_open_reports_it_open(
    redis: RedisServer, recorded: Metrics
) -> None:
    _, one, two = failing_replicas(redis)
    async with one, two:
        two.catalog  # noqa: B018 - compiled: its circuit is reported
        before = state(recorded, "replica two")
        for _ in range(2):
            await one.call_tool("flaky")
        refused = await two.call_tool("flaky")
        after = state(recorded, "replica two")
        two.changed()  # recompiled (as on any list_changed): its circuit is still the shared one
        two.catalog  # noqa: B018
    assert before == ["closed"]
    assert refused.is_error and "Circuit open" in refused.text
    assert after == state(recorded, "replica two") == ["open"]
    assert state(recorded, "replica one") == ["open"]


async def test_the_replica_whose_failure_opens_the_shared_circuit_reports_it_open(
    redis: RedisServer, recorded: Metrics
) -> None:
    """Its own circuit saw one failure of two: the shared one saw both."""
    _, one, two = failing_replicas(redis)
    async with one, two:
        await one.call_tool("flaky")
        await two.call_tool("flaky")
    assert state(recorded, "replica one") == ["closed"]  # what it acted on; it learns more at its next call
    assert state(recorded, "replica two") == ["open"]


async def test_a_replica_falling_back_to_its_own_circuit_reports_that_one(
    redis: RedisServer, recorded: Metrics
) -> None:
    upstream, one, two = failing_replicas(redis)
    async with one, two:
        for _ in range(2):
            await one.call_tool("flaky")
        await two.call_tool("flaky")  # refused: open in Redis
        redis.stop()
        upstream.failing = False
        allowed = await two.call_tool("flaky")  # its own circuit is closed: it lets the call through
    assert allowed.text == "ok"
    assert state(recorded, "replica two") == ["closed"]
