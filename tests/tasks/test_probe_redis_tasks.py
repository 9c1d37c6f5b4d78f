"""Tasks kept in a real Redis that goes away and comes back."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import MCPError

from tests.store.redis_server import RedisServer
from tests.tasks.servers import Gate, cancel, create, get, task_client, tasks_server, until
from toolweave.config import build_file
from toolweave.config.live import LiveServer
from toolweave.store import RedisStore
from toolweave.tasks.serving import NOT_FOUND


async def test_a_task_that_ends_while_redis_is_down_is_saved_once_redis_returns(redis: RedisServer) -> None:
    gate = Gate()
    server = tasks_server(gate, name="blip", store=RedisStore(redis.url, timeout=0.5, retry_after=0.1))
    async with task_client(server) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        redis.stop()
        gate.release.set()
        await anyio.sleep(0.5)  # the work ended while the store was down
        redis.start()  # empty: the record is back only if the end was written again
        with anyio.fail_after(10):
            while not await _stored(redis, created.task_id):  # noqa: ASYNC110 - another process's state
                await anyio.sleep(0.05)
        done = await until(client, created.task_id, "completed", "failed")
    assert done.status == "completed"
    assert done.result is not None and done.result["content"][0]["text"] == "built main"


async def _stored(redis: RedisServer, task_id: str, server: str = "blip") -> bool:
    store = RedisStore(redis.url)
    try:
        return bool(await store.run(lambda client: client.exists(f"toolweave:tasks:{server}:{task_id}")))
    finally:
        await store.close()


async def test_another_server_on_the_same_redis_neither_reads_nor_cancels_a_task(redis: RedisServer) -> None:
    gate = Gate()
    owner, other = (
        tasks_server(gate, name="builds", store=redis.url),
        tasks_server(Gate(), name="exports", store=redis.url),
    )
    async with task_client(owner) as client, task_client(other) as stranger:
        await anyio.sleep(0.5)  # both relays subscribed
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        with pytest.raises(MCPError) as read:
            await get(stranger, created.task_id)
        with pytest.raises(MCPError) as cancelled:
            await cancel(stranger, created.task_id)
        await anyio.sleep(0.2)
        running = await get(client, created.task_id)
        gate.release.set()
        done = await until(client, created.task_id, "completed")
    assert read.value.error.code == cancelled.value.error.code == -32602
    assert running.status == "working" and done.status == "completed"


async def test_a_watched_config_keeps_its_tasks_as_the_config_says(redis: RedisServer, tmp_path: Path) -> None:
    (tmp_path / "probe_task_tools.py").write_text(
        "from toolweave import Server\n"
        "server = Server('jobs')\n"
        "@server.tool(task_support='required')\n"
        "def export(table: str) -> str:\n"
        "    return table\n"
    )
    path = tmp_path / "gw.yaml"
    path.write_text(
        f"server: {{name: gw, store: '{redis.url}', tasks: {{keep: 77}}}}\npython: ['probe_task_tools:server']\n"
    )
    live = LiveServer(build_file(path), file=path)
    async with task_client(live) as client:
        created = await create(client, "export", {"table": "t"})
    assert created.ttl_ms == 77_000
    assert await _stored(redis, created.task_id, server="gw")


async def test_a_task_id_naming_one_of_the_stores_own_keys_is_not_found(redis: RedisServer) -> None:
    """Ids are looked up under the store's keys: `generation` (its stamp) and `<id>:lease` (a
    running task's lease) were read as records, a logged internal error on every such request."""
    gate = Gate()
    server = tasks_server(gate, name="blip", store=redis.url)
    async with task_client(server) as client:
        created = await create(client, "build", {"ref": "main"})
        await gate.entered.wait()
        for made_up in ("generation", f"{created.task_id}:lease"):
            with pytest.raises(MCPError) as refused:
                await get(client, made_up)
            assert (refused.value.error.code, refused.value.error.message) == (-32602, NOT_FOUND)
        gate.release.set()
        await until(client, created.task_id, "completed")
