"""Live reload: `LiveServer.reload()` swaps the build while serving, keeping unchanged upstreams."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import ROOT
from tests.server.changes import names, watched
from toolweave.config import build_file
from toolweave.config.live import LiveServer
from toolweave.core.errors import ConfigError
from toolweave.testing import connect

from .cli import living, serve_stdio
from .measure import FIGURES
from .raw import SERVERS, RawStdio

UP = """
mcpServers:
  up:
    command: ${PYTHON}
    args: [target.py]
    cwd: .
    prefix: up
"""
TASK_UP = """
mcpServers:
  up:
    command: {python}
    args: [{upstream}]
    env: {{PYTHONPATH: {root}}}
    prefix: up"""
TASK_UPSTREAM = Path(__file__).parents[1] / "tasks" / "upstreams" / "task_upstream.py"
LOCAL = """
python:
  - import: target:server
    prefix: local
"""


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Path]:
    """A config file next to a copy of the target server, with both a local and an upstream mount."""
    shutil.copy(SERVERS / "target.py", tmp_path / "target.py")
    path = tmp_path / "gateway.yaml"
    rewrite(path, "server:\n  name: gateway\n" + LOCAL + UP)
    os.environ["PYTHON"] = sys.executable
    yield path
    sys.modules.pop("target", None)


def rewrite(path: Path, text: str) -> None:
    """Replace the config file's text (as an editor saves it)."""
    path.write_text(text)


def live(path: Path) -> LiveServer:
    return LiveServer(build_file(path))


async def pid(client: object) -> int:
    return int((await client.call_tool("up_pid", {})).content[0].text)  # type: ignore[attr-defined]


async def test_a_reload_changes_the_tools_and_tells_every_client(config: Path) -> None:
    server = live(config)
    async with (
        watched(server, "auto") as (modern, modern_changes),
        watched(server, "legacy") as (legacy, legacy_changes),
        watched(server, "legacy") as (other, other_changes),
    ):
        assert "local_echo" in await names(modern)
        rewrite(config, "server:\n  name: gateway\n" + LOCAL.replace("prefix: local", "prefix: near") + UP)
        await server.reload()
        for changes in (modern_changes, legacy_changes, other_changes):
            await changes.wait_for(1)
        listed = [await names(client) for client in (modern, legacy, other)]
    for names_listed in listed:
        assert "near_echo" in names_listed and "local_echo" not in names_listed and "up_echo" in names_listed


async def test_an_unchanged_upstream_keeps_its_session_and_process(config: Path) -> None:
    server = live(config)
    async with watched(server, "auto") as (client, _):
        before = await pid(client)
        rewrite(config, "server:\n  name: gateway\n" + UP + "middleware:\n  timeout: 30\n")
        await server.reload()
        after = await pid(client)
    assert before == after


async def test_a_changed_upstream_is_restarted_and_the_old_process_reaped(config: Path) -> None:
    server = live(config)
    async with watched(server, "auto") as (client, _):
        before = await pid(client)
        rewrite(config, "server:\n  name: gateway\n" + UP.replace("cwd: .", "cwd: .\n    env: {MODE: new}"))
        await server.reload()
        after = await pid(client)
        with anyio.fail_after(10):
            while living([before]):  # noqa: ASYNC110 - another process exits
                await anyio.sleep(0.05)
    assert before != after


@pytest.mark.parametrize(
    "broken",
    [
        "server: [not, a, mapping",
        "server:\n  name: gateway\nmiddleware:\n  timout: 3\n",
        "server:\n  name: gateway\n" + LOCAL + UP.replace("prefix: up", "prefix: local"),
        "",
        "# emptied, to be written again\n",
        "server:\n  name: gateway\n" + LOCAL + UP.replace("command: ${PYTHON}", "command: /no/such/python"),
    ],
    ids=["not YAML", "unknown key", "name clash", "empty", "comments only", "upstream that cannot start"],
)
async def test_a_broken_file_is_rejected_and_the_old_build_keeps_serving(
    config: Path, broken: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = live(config)
    async with watched(server, "auto") as (client, _):
        rewrite(config, broken)
        with pytest.raises(ConfigError):
            await server.reload()
        result = await client.call_tool("local_echo", {"text": "still here"})
        assert "up_echo" in await names(client)
    assert result.content[0].text == "still here"
    rejected = [r for r in caplog.records if r.levelno == logging.ERROR and "reload of" in r.getMessage()]
    assert len(rejected) == 1 and "still serving the previous version" in rejected[0].getMessage()


async def test_calls_in_flight_finish_on_the_old_build(config: Path) -> None:
    server = live(config)
    results: dict[str, str] = {}
    async with watched(server, "auto") as (client, _):

        async def call(name: str) -> None:
            results[name] = (await client.call_tool(name, {"seconds": 0.5})).content[0].text

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, "local_sleep")
            tasks.start_soon(call, "up_sleep")
            await anyio.sleep(0.1)
            rewrite(config, "server:\n  name: gateway\n")  # both mounts gone
            await server.reload()
        assert await names(client) == []
    assert results == {"local_sleep": "slept 0.5", "up_sleep": "slept 0.5"}


@pytest.mark.parametrize("bound", ["", "\n    timeout: 2"], ids=["no timeout", "past the remote's timeout"])
async def test_a_call_whose_upstream_answered_with_a_task_finishes_when_a_reload_drops_that_upstream(
    tmp_path: Path, bound: str
) -> None:
    """Between two polls of the upstream's task no request is under way: the dropped upstream was
    closed at once, and the call failed ("lost contact with upstream 'up' while its task ran"); and
    its close waited for the calls at most the remote's `timeout`, which a task call outlasts."""
    path = tmp_path / "gateway.yaml"
    upstream = TASK_UP.format(python=sys.executable, upstream=TASK_UPSTREAM, root=ROOT) + bound
    rewrite(path, "server:\n  name: gateway\n" + upstream)
    server = live(path)
    async with watched(server, "auto") as (client, _), anyio.create_task_group() as tasks:
        remote = server.composed.remotes[0]
        with anyio.fail_after(20):  # it connects again, in the era where it serves tasks
            while not (remote.era == "2026" and remote.state == "up"):  # noqa: ASYNC110 - another process
                await anyio.sleep(0.05)
        results: list[Any] = []

        async def call() -> None:
            results.append(await client.call_tool("up_deploy", {"env": "prod", "seconds": 4}))

        tasks.start_soon(call)
        await anyio.sleep(1.0)  # the upstream answered with its task (on a loaded machine too); the gateway polls it
        rewrite(path, "server:\n  name: gateway\n")
        await server.reload()
    assert not results[0].is_error and results[0].content[0].text == "deployed to prod", results[0].content[0].text


async def test_a_reload_does_not_wait_for_the_calls_on_an_upstream_it_drops(config: Path) -> None:
    """The dropped upstream is closed in the background once the call has its answer; `reload()`
    waited for that call (up to the remote's timeout), holding up the next reload with it."""
    server = live(config)
    async with watched(server, "auto") as (client, _), anyio.create_task_group() as tasks:
        results: list[Any] = []

        async def call() -> None:
            results.append(await client.call_tool("up_sleep", {"seconds": 60}))

        tasks.start_soon(call)
        await anyio.sleep(0.3)
        rewrite(config, "server:\n  name: gateway\n" + LOCAL)
        with anyio.fail_after(20):
            await server.reload()
            rewrite(config, "server:\n  name: gateway\n" + LOCAL.replace("prefix: local", "prefix: near"))
            await server.reload()
        assert results == [] and "near_echo" in await names(client)
        tasks.cancel_scope.cancel()


async def test_a_reload_after_an_in_process_call_starts_a_changed_upstream_with_the_next_call(config: Path) -> None:
    """A call on a server that is not running enters its lifespan for that call only; a reload
    after it started the new upstream in that ended lifespan's task group (a RuntimeError)."""
    server = live(config)
    before = await server.call_tool("up_pid", {})
    rewrite(config, "server:\n  name: gateway\n" + UP.replace("cwd: .", "cwd: .\n    env: {MODE: new}"))
    await server.reload()
    after = await server.call_tool("up_pid", {})
    assert before.content[0].text != after.content[0].text  # type: ignore[union-attr]


async def test_reload_without_a_lifespan_swaps_the_build(config: Path) -> None:
    server = live(config)
    rewrite(config, "server:\n  name: gateway\n" + LOCAL)
    await server.reload()
    assert [tool.name for tool in await server.list_tools()] == ["local_echo", "local_fail", "local_sleep", "local_pid"]


async def listed(raw: RawStdio, request_id: int) -> list[str]:
    await raw.send(b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}' % request_id)
    answer = (await raw.answers_until(request_id))[-1]
    return [tool["name"] for tool in answer["result"]["tools"]]


async def test_serve_watch_reloads_an_edited_file_and_skips_a_broken_one(config: Path) -> None:
    raw = await serve_stdio("--watch", config=config)
    try:
        assert "local_echo" in await listed(raw, 1)
        rewrite(config, "server:\n  name: gateway\n" + LOCAL.replace("prefix: local", "prefix: near") + UP)
        with anyio.fail_after(15):
            while (await raw.receive()).get("method") != "notifications/tools/list_changed":
                pass
        assert "near_echo" in await listed(raw, 2)
        rewrite(config, "server: [broken")
        await anyio.sleep(1.0)  # the watcher sees it, and rejects it
        assert "near_echo" in await listed(raw, 3)
    finally:
        assert await raw.close() == 0


async def reload_under_load(config: Path, reloads: int, calls: int) -> Counter[str]:
    plain = "server:\n  name: gateway\n" + LOCAL + UP
    timed = plain + "middleware:\n  timeout: 30\n"
    server = live(config)
    outcomes: Counter[str] = Counter()
    async with server, anyio.create_task_group() as load:
        clients = [await load.start(_client, server, calls // 10, outcomes) for _ in range(10)]
        for number in range(reloads):
            rewrite(config, timed if number % 2 == 0 else plain)
            await server.reload()
            await anyio.sleep(0.01)
        for done in clients:
            await done.wait()
    assert server.reloads == reloads
    return outcomes


async def _client(server: LiveServer, calls: int, outcomes: Counter[str], task_status: Any) -> None:
    done = anyio.Event()
    task_status.started(done)
    async with connect(server, mode="legacy") as client:
        for index in range(calls):
            name = "up_echo" if index % 2 else "local_echo"
            result = await client.call_tool(name, {"text": str(index)})
            ok = not result.is_error and result.content[0].text == str(index)
            outcomes["ok" if ok else f"failed: {result.content[0].text}"] += 1
    done.set()


async def test_10_reloads_during_1000_calls_fail_none(config: Path) -> None:
    outcomes = await reload_under_load(config, reloads=10, calls=1000)
    assert outcomes == Counter({"ok": 1000})
    FIGURES["10 reloads during 1,000 calls: outcomes"] = dict(outcomes)


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_100_reloads_during_10000_calls_fail_none(config: Path) -> None:
    outcomes = await reload_under_load(config, reloads=100, calls=10_000)
    assert outcomes == Counter({"ok": 10_000})
    FIGURES["100 reloads during 10,000 calls: outcomes"] = dict(outcomes)
