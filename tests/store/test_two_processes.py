"""Two `toolweave serve` processes on two ports (replicas behind any load balancer), one Redis."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from mcp import Client

from tests.serving import toolweave_announced
from tests.store.redis_server import RedisServer

pytestmark = pytest.mark.timeout(240)  # two serve processes start on a loaded machine


TOOLS = '''
import itertools
from toolweave import Server, ToolAnnotations

server = Server("replica")
counter = itertools.count(1)

@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def lookup(q: str) -> str:
    """Cached: the answer names the process call that made it."""
    return f"{q}#{next(counter)}"

@server.tool
def limited() -> str:
    """Rate-limited across replicas."""
    return "ok"
'''


@pytest.fixture
def replicas(tmp_path: Path, redis: RedisServer) -> Iterator[list[str]]:
    (tmp_path / "replica_tools.py").write_text(TOOLS)
    config = tmp_path / "gw.yaml"
    config.write_text(
        f"server: {{name: gw, store: {{url: '{redis.url}', timeout: 2}}}}\n"
        "python: ['replica_tools:server']\n"
        "middleware:\n  rate_limit: {rate: 0.001, burst: 3, tools: limited}\n  cache: {ttl: 60}\n"
    )
    with ExitStack() as stack:
        yield [stack.enter_context(toolweave_announced(config))[0] for _ in range(2)]


async def test_two_serve_processes_share_one_rate_limit_and_one_cache(replicas: list[str]) -> None:
    async with Client(replicas[0]) as first, Client(replicas[1]) as second:
        limited = [await (first, second)[i % 2].call_tool("limited", {}) for i in range(8)]
        written = await first.call_tool("lookup", {"q": "a"})
        read = await second.call_tool("lookup", {"q": "a"})
    assert [result.is_error for result in limited].count(False) == 3
    assert written.content[0].text == read.content[0].text == "a#1"
