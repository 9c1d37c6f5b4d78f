"""A stop while `serve --watch` reloads leaves the reload behind: a reload fetching a slow
OpenAPI spec (up to 30 s each) held the exit that long whatever `--grace` said, and a
supervisor's kill came first (the parent of `--workers` kills at grace + 5 s)."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest
from anyio.abc import SocketStream

from tests.serving import toolweave_started

from .cli import terminate
from .raw import SERVERS

pytestmark = pytest.mark.timeout(120)


async def test_a_stop_during_a_reload_that_fetches_a_spec_exits_within_the_grace_period(tmp_path: Path) -> None:
    shutil.copy(SERVERS / "target.py", tmp_path / "target.py")
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: target:server\n    prefix: local\n")
    fetching = anyio.Event()

    async def never_answer(stream: SocketStream) -> None:
        async with stream:
            fetching.set()
            await anyio.sleep_forever()

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    spec = f"http://127.0.0.1:{listener.extra(anyio.abc.SocketAttribute.local_port)}/openapi.json"
    async with listener, anyio.create_task_group() as tasks:
        tasks.start_soon(listener.serve, never_answer)
        process, _ = await toolweave_started(config, "--watch", "--grace", "1")
        try:
            config.write_text(config.read_text() + f"openapi:\n  one:\n    spec: {spec}\n  two:\n    spec: {spec}\n")
            with anyio.fail_after(30):
                await fetching.wait()  # the reload waits for the first spec (30 s at most; the second: 30 more)
            terminate(process)
            with anyio.fail_after(20):
                status = await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        tasks.cancel_scope.cancel()
    assert status == 0
