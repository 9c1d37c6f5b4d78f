"""A burst of registrations freezes the heap out of the collector's sight; small servers never do."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from toolweave import Server
from toolweave.server.heap import FREEZE_EVERY
from toolweave.testing import fake_tool


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Start with nothing frozen, and hand what a test froze back to the collector afterwards."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def _register(server: Server, count: int, start: int = 0) -> None:
    for index in range(start, start + count):
        server.add_tool(fake_tool(f"tool_{index}"))


def test_a_small_server_never_freezes_anything(unfrozen: None) -> None:
    server = Server("small")
    _register(server, FREEZE_EVERY - 1)
    assert server.catalog.entries  # compiled below the threshold
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


def test_a_burst_of_registrations_is_frozen_as_it_grows_and_once_compiled(unfrozen: None) -> None:
    server = Server("large")
    _register(server, FREEZE_EVERY)
    after_burst = gc.get_freeze_count()
    assert after_burst > 0  # the registrations so far are out of the collector's sight
    _register(server, 10, start=FREEZE_EVERY)
    assert gc.get_freeze_count() == after_burst  # no freeze between multiples
    assert len(server.catalog.entries) == FREEZE_EVERY + 10
    assert gc.get_freeze_count() > after_burst  # the compiled catalog is frozen too
    assert gc.isenabled()  # the collector itself is never left disabled


def test_recompiling_a_large_catalog_after_a_small_change_does_not_freeze_again(unfrozen: None) -> None:
    server = Server("large")
    _register(server, FREEZE_EVERY)
    server.catalog  # noqa: B018 - compile
    gc.unfreeze()
    server.add_tool(fake_tool("one_more"))
    assert "one_more" in server.catalog.entries
    assert gc.get_freeze_count() == 0
