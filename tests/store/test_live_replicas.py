"""Replicas served by `serve --watch` (a `LiveServer` built from a file with `server.store`) are
replicas like any other: their changes reach every replica, and they share the file's state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
from mcp import Client

from tests.serving import serving
from tests.store.redis_server import RedisServer
from toolweave.config import build_file
from toolweave.config.live import LiveServer
from toolweave.server.server import Server

TOOLS = "python:\n  - import: posixpath:basename\n  - import: posixpath:dirname\n"


def config(tmp_path: Path, url: str, extra: str = "") -> Path:
    path = tmp_path / "gateway.yaml"
    path.write_text(f"{TOOLS}server:\n  name: gw\n  store: {url}\n{extra}")
    return path


async def names(server: Server) -> list[str]:
    return [tool.name for tool in await server.list_tools()]


async def until_listed(server: Server, expected: list[str]) -> None:
    """Wait (5 s at most) until `server` lists the tools `expected` (another replica's change)."""
    with anyio.fail_after(5):
        while await names(server) != expected:  # noqa: ASYNC110 - another replica's state
            await anyio.sleep(0.05)


async def test_disable_and_enable_on_one_live_replica_apply_on_the_other(redis: RedisServer, tmp_path: Path) -> None:
    """A `LiveServer` had a memory store's fan-out (none): its `disable` stayed on its own replica."""
    path = config(tmp_path, redis.url)
    one, two = LiveServer(build_file(path)), LiveServer(build_file(path))
    async with one, two:
        await anyio.sleep(0.2)  # both listening
        one.disable("basename")

        await until_listed(two, ["dirname"])
        one.enable("basename")

        await until_listed(two, ["basename", "dirname"])


async def test_a_live_replica_and_a_plain_one_apply_each_others_changes(redis: RedisServer, tmp_path: Path) -> None:
    """`serve` and `serve --watch` replicas of one file announce on one channel."""
    path = config(tmp_path, redis.url)
    live, plain = LiveServer(build_file(path)), build_file(path).server
    async with live, plain:
        await anyio.sleep(0.2)
        plain.disable("dirname")

        await until_listed(live, ["basename"])
        live.enable("dirname")

        await until_listed(plain, ["basename", "dirname"])


@asynccontextmanager
async def watched_replica_two(path: Path) -> AsyncIterator[tuple[LiveServer, anyio.Event, Client]]:
    """Replica one in process, replica two over HTTP with a handshake-era client noting `list_changed`."""
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            changed.set()

    one, two = LiveServer(build_file(path)), LiveServer(build_file(path))
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(one)
        url = await stack.enter_async_context(serving(two.http_app()))
        client = await stack.enter_async_context(Client(f"{url}/mcp", mode="legacy", message_handler=on_message))
        await anyio.sleep(0.2)  # both listening
        yield one, changed, client


async def test_disable_on_one_live_replica_sends_list_changed_to_a_client_of_the_other(
    redis: RedisServer, tmp_path: Path
) -> None:
    async with watched_replica_two(config(tmp_path, redis.url)) as (one, changed, client):
        one.disable("basename")
        with anyio.fail_after(5):
            await changed.wait()
        listed = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == ["dirname"]


async def test_a_reload_on_one_live_replica_sends_list_changed_to_a_client_of_the_other(
    redis: RedisServer, tmp_path: Path
) -> None:
    """Each replica reloads its own file; the clients of the others learn that lists changed."""
    path = config(tmp_path, redis.url)
    async with watched_replica_two(path) as (one, changed, _):
        await one.reload()
        with anyio.fail_after(5):
            await changed.wait()


async def test_a_live_replica_and_a_plain_one_share_the_files_rate_limit(redis: RedisServer, tmp_path: Path) -> None:
    """The live server named the build's state under its own name too (`gw/gw:0`, a plain `serve`
    of the file `gw:0`), so a `--watch` replica and a plain one each had their own bucket."""
    path = config(tmp_path, redis.url, "middleware:\n  rate_limit: {rate: 0.001, burst: 2}\n")
    live, plain = LiveServer(build_file(path)), build_file(path).server
    async with live, plain:
        calls = [await server.call_tool("basename", {"p": "/a/b"}) for server in (live, plain, plain)]
    assert [result.is_error for result in calls] == [False, False, True]


async def test_a_reload_keeps_sharing_the_files_rate_limit(redis: RedisServer, tmp_path: Path) -> None:
    path = config(tmp_path, redis.url, "middleware:\n  rate_limit: {rate: 0.001, burst: 2}\n")
    live, plain = LiveServer(build_file(path)), build_file(path).server
    async with live, plain:
        first = await live.call_tool("basename", {"p": "/a/b"})
        await live.reload()
        calls = [await server.call_tool("basename", {"p": "/a/b"}) for server in (live, plain)]
    assert [result.is_error for result in (first, *calls)] == [False, False, True]


async def test_a_live_replica_applies_an_announcement_once(redis: RedisServer, tmp_path: Path) -> None:
    """Only the live server listens on the file's channel, not also the build it serves."""
    path = config(tmp_path, redis.url)
    live, plain = LiveServer(build_file(path)), build_file(path).server
    notified: list[str] = []
    live.subscribe(lambda: notified.append("tools"))
    async with live, plain:
        await anyio.sleep(0.2)
        plain.disable("dirname")

        await until_listed(live, ["basename"])
        await anyio.sleep(0.3)  # a second listener would have applied it by now
    assert notified == ["tools"]
