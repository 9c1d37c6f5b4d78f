"""Test helper: replicas of one gateway (same name, same middleware, each its own store object)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolweave import Server, ToolAnnotations
from toolweave.middleware import Middleware
from toolweave.store import RedisStore


class Upstream:
    """What the replicas' tools call: counts calls; can be made to fail."""

    def __init__(self) -> None:
        self.calls = 0
        self.failing = False
        self.delay = 0.0


def replica(url: str, *middleware: Middleware, upstream: Upstream | None = None, **store: Any) -> Server:
    """A gateway named "gw" sharing `url`, with `middleware`; tools `lookup` (cacheable) and `flaky`."""
    import anyio

    upstream = upstream or Upstream()
    options = {"timeout": 2.0, "retry_after": 0.2} | store
    server = Server("gw", store=RedisStore(url, **options), middleware=middleware)
    safe = ToolAnnotations(read_only_hint=True, idempotent_hint=True)

    @server.tool(annotations=safe)
    async def lookup(q: str) -> str:
        upstream.calls += 1
        if upstream.delay:
            await anyio.sleep(upstream.delay)
        return f"{q}#{upstream.calls}"

    @server.tool
    async def flaky() -> str:
        upstream.calls += 1
        if upstream.failing:
            raise ConnectionError("upstream down")
        return "ok"

    return server


def texts(results: list[Any], pick: Callable[[Any], Any] = lambda r: r.text) -> list[Any]:
    return [pick(result) for result in results]
