"""Live reload of a config with an `openapi` entry: the new build's HTTP client is open before it
serves, and a call under way on the old build keeps its client until it has its answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.openapi.petstore import petstore
from tests.serving import served
from toolweave.config import build_file
from toolweave.config.live import LiveServer
from toolweave.testing import connect


@pytest.fixture
def api() -> Iterator[str]:
    with served(petstore()) as url:
        yield url


def config(path: Path, url: str, instructions: str) -> Path:
    entry = f"openapi:\n  pets:\n    spec: {url}/openapi.json\n    base_url: {url}\n"
    path.write_text(f"server: {{instructions: {instructions}}}\n{entry}")
    return path


async def test_the_first_call_after_a_reload_reaches_the_api(api: str, tmp_path: Path) -> None:
    """The reloaded build used to be mounted before its client was open: the calls right after a
    reload failed with "API 'pets' is not started"."""
    path = config(tmp_path / "gateway.yaml", api, "first")
    live = LiveServer(build_file(path))
    async with connect(live) as client:
        config(path, api, "second")
        await live.reload()
        result = await client.call_tool("get_pet", {"pet_id": 1})
    assert live.reloads == 1
    assert not result.is_error, result.content[0].text
    assert result.structured_content == {"id": 1, "name": "Rex", "tag": "dog"}


async def test_a_call_under_way_during_a_reload_gets_its_answer(api: str, tmp_path: Path) -> None:
    """The old build's client used to be closed under the call: `GET /slow failed (ReadError)`."""
    path = config(tmp_path / "gateway.yaml", api, "first")
    live = LiveServer(build_file(path))
    answers = []
    async with connect(live) as client:

        async def slow() -> None:
            answers.append(await client.call_tool("slow", {"seconds": 1.0}))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(slow)
            await anyio.sleep(0.3)
            config(path, api, "second")
            await live.reload()
    assert live.reloads == 1
    assert not answers[0].is_error, answers[0].content[0].text
    assert answers[0].structured_content == {"done": True}
