"""`RateLimit`: a token bucket per caller; over the limit, a `Rejected` result with retry-after."""

from __future__ import annotations

import re
from typing import Any

import mcp.types as mt
import pytest

from toolweave import AuthInfo, Context, Server
from toolweave.middleware import RateLimit
from toolweave.testing import connect, fake_tool


def _server(limit: RateLimit) -> Server:
    server = Server("limited", middleware=[limit])
    server.add_tool(fake_tool("search"))
    server.add_tool(fake_tool("fetch"))
    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_one_caller_over_the_limit_leaves_another_unaffected(mode: str) -> None:
    limit = RateLimit(rate=0.01, burst=2, key="client")
    server = _server(limit)
    alice = connect(server, mode=mode, client_info=mt.Implementation(name="alice", version="1"))
    bob = connect(server, mode=mode, client_info=mt.Implementation(name="bob", version="1"))
    async with alice as a, bob as b:
        first = [await a.call_tool("search", {}) for _ in range(3)]
        others = [await b.call_tool("search", {}) for _ in range(2)]
    assert [r.is_error for r in first] == [False, False, True]
    assert [r.is_error for r in others] == [False, False]
    message = first[-1].content[0].text
    assert re.fullmatch(r"Rate limit exceeded for tool 'search': retry in [\d.]+s", message), message
    assert limit.rejected == 1


async def test_the_budget_is_shared_across_tools_unless_per_tool() -> None:
    shared, separate = RateLimit(rate=0.01, burst=1), RateLimit(rate=0.01, burst=1, per_tool=True)
    for limit, expected in ((shared, [False, True]), (separate, [False, False])):
        server = _server(limit)
        results = [await server.call_tool(name) for name in ("search", "fetch")]
        assert [r.is_error for r in results] == expected


async def test_the_default_key_is_the_authenticated_subject() -> None:
    server = _server(RateLimit(rate=0.01, burst=1))

    def as_user(subject: str) -> Context:
        return Context(server=server, auth=AuthInfo(subject=subject))

    assert not (await server.call_tool("search", ctx=as_user("alice"))).is_error
    assert (await server.call_tool("search", ctx=as_user("alice"))).is_error
    assert not (await server.call_tool("search", ctx=as_user("bob"))).is_error


async def test_a_key_function_picks_the_bucket() -> None:
    server = _server(RateLimit(rate=0.01, burst=1, key=lambda ctx: ctx.state.get("tenant", "none")))
    results = [
        await server.call_tool("search", ctx=Context(server=server, state={"tenant": tenant}))
        for tenant in ("acme", "acme", "globex")
    ]
    assert [r.is_error for r in results] == [False, True, False]


def test_tokens_refill_at_the_rate() -> None:
    limit = RateLimit(rate=2, burst=1)
    assert limit.take("k", now=0.0) == 0.0
    assert limit.take("k", now=0.25) == pytest.approx(0.25)
    assert limit.take("k", now=0.5) == 0.0


def test_buckets_are_bounded() -> None:
    limit = RateLimit(rate=1, max_keys=2)
    for key in ("a", "b", "c"):
        limit.take(key, now=0.0)
    assert list(limit._buckets) == ["b", "c"]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"rate": 0}, "rate"),
        ({"rate": 1, "burst": 0.5}, "burst"),
        ({"rate": 1, "key": "ip"}, "key must be"),
        ({"rate": 1, "max_keys": 0}, "max_keys must be a whole number of buckets >= 1"),  # (it turned limiting off)
        ({"rate": 1, "max_keys": -3}, "max_keys"),
    ],
)
def test_bad_settings_are_refused(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        RateLimit(**options)
