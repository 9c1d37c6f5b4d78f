"""`serve --watch` (a `LiveServer`): the `server` settings the served server takes from the file
at start, and what a reload says about the ones it cannot change."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import anyio
import pytest

from toolweave.config import build_file
from toolweave.config.live import LiveServer, reload_on_change
from toolweave.tasks.serving import tasks_settings

TOOLS = "python:\n  - import: posixpath:basename\n"


async def test_a_reload_that_changes_auth_says_it_takes_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The HTTP app keeps the verifier it started with; the reload used to report success only,
    so an operator tightening `server.auth` believed it applied."""
    path = tmp_path / "gateway.yaml"
    path.write_text(TOOLS)
    live = LiveServer(build_file(path))
    async with live:
        path.write_text(TOOLS + "server:\n  instructions: new\n  authenticate: posixpath:basename\n")
        with caplog.at_level(logging.WARNING, logger="toolweave.config"):
            await live.reload()
    assert live.instructions == "new"  # what a reload can change, it changes
    warned = [record.getMessage() for record in caplog.records if "takes a restart" in record.getMessage()]
    assert warned == [
        f"reload of {path}: server.authenticate changed, which takes a restart: "
        "the process keeps the values it started with"
    ]


def test_the_served_server_runs_tasks_with_the_files_task_settings(tmp_path: Path) -> None:
    """Under `--watch` the tasks settings went to the build, not to the server that serves them."""
    path = tmp_path / "gateway.yaml"
    path.write_text(TOOLS + "server:\n  tasks: {keep: 60, answer_within: 2}\n")
    live = LiveServer(build_file(path))
    settings = tasks_settings(live)
    assert (settings.keep, settings.answer_within) == (60, 2)


def test_the_served_server_keeps_the_files_store(tmp_path: Path) -> None:
    """Under `--watch` the served server had a memory store whatever `server.store` said, so HTTP
    events and tasks were not shared between replicas."""
    from toolweave.store.redis_store import RedisStore
    from toolweave.tasks.redis_store import RedisTaskStore

    path = tmp_path / "gateway.yaml"
    path.write_text(TOOLS + "server:\n  store: redis://127.0.0.1:9/0\n")
    composed = build_file(path)
    live = LiveServer(composed)
    assert isinstance(live.store, RedisStore) and live.store is composed.server.store
    assert isinstance(tasks_settings(live).store, RedisTaskStore)


def _configmap_update(folder: Path, stamp: str, text: str) -> None:
    """What the kubelet does to a mounted ConfigMap: the new files in a new folder, then the
    `..data` link swapped to it in one rename."""
    (folder / stamp).mkdir()
    (folder / stamp / "gateway.yaml").write_text(text)
    os.symlink(stamp, folder / "..data_tmp")
    os.rename(folder / "..data_tmp", folder / "..data")


async def test_watch_follows_every_update_of_a_kubernetes_configmap(tmp_path: Path) -> None:
    """The watcher used to watch the folder the file resolved to at start, which the first update
    deletes: later updates were never loaded, and nothing said so."""
    _configmap_update(tmp_path, "..2026_1", TOOLS + "server: {instructions: first}\n")
    os.symlink("..data/gateway.yaml", tmp_path / "gateway.yaml")
    live = LiveServer(build_file(tmp_path / "gateway.yaml"))
    async with live, anyio.create_task_group() as tasks:
        tasks.start_soon(reload_on_change(live))
        await anyio.sleep(0.5)  # the watcher is up
        for number, words in enumerate(["second", "third"], start=2):
            _configmap_update(tmp_path, f"..2026_{number}", TOOLS + f"server: {{instructions: {words}}}\n")
            shutil.rmtree(tmp_path / f"..2026_{number - 1}")
            with anyio.fail_after(10):
                while live.instructions != words:  # a reload offers no event to wait on  # noqa: ASYNC110
                    await anyio.sleep(0.05)
        tasks.cancel_scope.cancel()
    assert live.reloads == 2


async def test_watch_follows_edits_of_the_file_a_link_leads_to_in_another_folder(tmp_path: Path) -> None:
    """A config served through a link (`/etc/toolweave/gateway.yaml` to a checkout, dotfiles):
    only the link's folder was watched, so edits where the file lives were never loaded."""
    (tmp_path / "real").mkdir()
    (tmp_path / "served").mkdir()
    target = tmp_path / "real" / "gateway.yaml"
    target.write_text(TOOLS + "server: {instructions: first}\n")
    os.symlink(target, tmp_path / "served" / "gateway.yaml")
    live = LiveServer(build_file(tmp_path / "served" / "gateway.yaml"))
    async with live, anyio.create_task_group() as tasks:
        tasks.start_soon(reload_on_change(live))
        await anyio.sleep(0.5)  # the watcher is up
        for words in ["second", "third"]:
            target.write_text(TOOLS + f"server: {{instructions: {words}}}\n")  # edited in place
            with anyio.fail_after(10):
                while live.instructions != words:  # a reload offers no event to wait on  # noqa: ASYNC110
                    await anyio.sleep(0.05)
        tasks.cancel_scope.cancel()
    assert live.reloads == 2


async def test_a_cancelled_watch_ends_at_once(tmp_path: Path) -> None:
    """watchfiles waits in a thread that looks at its stop event every 50 ms but was told to stop
    only once that thread returned, up to 5 s later: every `serve --watch` shutdown (SIGTERM, the
    end of stdin) paid that, and with a call in flight the wait came on top of the grace period."""
    path = tmp_path / "gateway.yaml"
    path.write_text(TOOLS)
    live = LiveServer(build_file(path))
    async with live:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reload_on_change(live))
            await anyio.sleep(0.5)  # the watcher is up, its thread waiting
            cancelled = anyio.current_time()
            tasks.cancel_scope.cancel()
        assert anyio.current_time() - cancelled < 1.0
