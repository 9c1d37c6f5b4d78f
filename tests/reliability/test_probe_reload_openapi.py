"""Live reload of a config with an `openapi` entry: the new build's HTTP client is open before it
serves, and a call under way on the old build keeps its client until it has its answer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.openapi.petstore import petstore
from tests.serving import served
from toolweave.config import build_file
from toolweave.config.live import LiveServer
from toolweave.testing import connect

SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "S", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/a": {"get": {"operationId": "a"}}},
}


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


async def test_a_reload_waiting_for_a_spec_url_does_not_hold_the_calls_being_served(tmp_path: Path) -> None:
    """The build ran on the event loop: while a reload fetched a spec (up to its 30 s timeout, an
    API that is down or slow), every call of every client waited."""
    asked, answer = threading.Event(), threading.Event()

    async def document(request: Request) -> JSONResponse:
        if not answer.is_set():  # the reload's fetch: held until the call is answered
            asked.set()
            await anyio.to_thread.run_sync(answer.wait, 10.0)
        return JSONResponse(SPEC)

    with served(Starlette(routes=[Route("/openapi.json", document)])) as url:
        path = tmp_path / "gateway.yaml"
        path.write_text(f"python:\n  - import: posixpath:basename\nopenapi:\n  s:\n    spec: {url}/openapi.json\n")
        answer.set()
        live = LiveServer(build_file(path))
        answer.clear()
        async with connect(live) as client, anyio.create_task_group() as tasks:
            path.write_text(path.read_text() + "server: {instructions: second}\n")
            tasks.start_soon(live.reload)
            while not asked.is_set():  # noqa: ASYNC110 - the API's thread says when the fetch arrived
                await anyio.sleep(0.01)
            result = await client.call_tool("basename", {"p": "/a/b"})
            reloads = live.reloads
            answer.set()
    assert (result.content[0].text, reloads) == ("b", 0)  # answered while the reload waited
    assert live.reloads == 1
