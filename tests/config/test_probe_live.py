"""`serve --watch` (a `LiveServer`): the `server` settings the served server takes from the file
at start, and what a reload says about the ones it cannot change."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from toolweave.config import build_file
from toolweave.config.live import LiveServer
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
