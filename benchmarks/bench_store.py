"""The per-call cost of state shared in Redis against the same middleware in memory (in-process calls).

Each row is `server.call_tool` of one async tool through one middleware: `RateLimit` (a bucket
large enough never to refuse), a `Cache` hit, and a `CircuitBreaker` on a healthy upstream,
first with the default in-memory store, then with a `RedisStore` on a local `redis-server`
(one round trip per call: a Lua script, a GET, an HMGET). Rows are measured side by side in
one run; the Redis rows are skipped (with a note) when `redis-server` is not installed.
"""

from __future__ import annotations

from typing import Any

from benchmarks.redis_process import redis_url
from benchmarks.timing import Row, median_us
from toolweave import Server, ToolAnnotations
from toolweave.middleware import Cache, CircuitBreaker, Middleware, RateLimit
from toolweave.store import RedisStore

GROUP = "shared state: in-process call through one middleware (µs/call)"


def gateway(layer: Middleware | None, store: Any = None) -> Server:
    server = Server("bench", middleware=[layer] if layer is not None else [], store=store)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def echo(text: str) -> str:
        return text

    return server


async def timed(server: Server, quick: bool) -> float:
    async with server:
        return await median_us(
            lambda: server.call_tool("echo", {"text": "hi"}),
            repeat=3 if quick else 7,
            number=200 if quick else 2000,
            warmup=50 if quick else 200,
        )


LAYERS = {
    "RateLimit": lambda: RateLimit(rate=1e9, burst=1e9),
    "Cache (hit)": lambda: Cache(ttl=3600),
    "CircuitBreaker (closed)": lambda: CircuitBreaker(),
}


async def collect(quick: bool) -> list[Row]:
    rows = [Row(GROUP, "no middleware", await timed(gateway(None), quick))]
    with redis_url() as url:
        for name, make in LAYERS.items():
            memory = f"{name}, in memory"
            rows.append(Row(GROUP, memory, await timed(gateway(make()), quick), baseline="no middleware"))
            if url is None:
                rows.append(Row(GROUP, f"{name}, Redis", 0.0, note="redis-server not installed"))
                continue
            store = RedisStore(url)
            rows.append(
                Row(
                    GROUP,
                    f"{name}, Redis",
                    await timed(gateway(make(), store), quick),
                    baseline=memory,
                    note="local redis-server, one round trip",
                )
            )
    return rows
