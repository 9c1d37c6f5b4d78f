"""Upstreams that speak only the legacy HTTP+SSE transport: real SDK SSE servers on 127.0.0.1."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from tests.conftest import free_port
from tests.serving import PORT, Spawned, serving, spawned
from toolweave import Server
from toolweave.server.remote import Backoff, RemoteServer, SseTarget

from .changes import names
from .test_remote import UPSTREAMS, running, wait_for_file


def sse(script: str) -> AbstractContextManager[Spawned]:
    """`script` serving the legacy SSE transport (`/sse`, `/messages/`) until the block ends."""
    return spawned(sys.executable, str(UPSTREAMS / script), "sse", PORT)


@pytest.fixture(params=["ll_upstream.py", "sdk_upstream.py"])
def sse_upstream(request: pytest.FixtureRequest) -> Iterator[str]:
    """The SSE URL of an upstream built on the SDK (low-level server, then `MCPServer`)."""
    with sse(request.param) as upstream:
        yield f"{upstream.url}/sse"


async def test_an_sse_upstream_is_listed_and_called_under_its_prefix(sse_upstream: str) -> None:
    async with running(RemoteServer.sse(sse_upstream)) as client:
        listed = await names(client)
        if "up_echo" in listed:
            result = await client.call_tool("up_echo", {"text": "over sse"})
            expected: Any = {"echo": "over sse"}
        else:
            result = await client.call_tool("up_add", {"a": 2, "b": 40})
            expected = {"result": 42}
    assert "local" in listed and len(listed) > 2
    assert result.structured_content == expected and not result.is_error


async def test_sse_upstream_headers_reach_the_upstream_and_stay_out_of_what_is_shown() -> None:
    with sse("sdk_upstream.py") as upstream:
        remote = RemoteServer.sse(f"{upstream.url}/sse", headers={"x-api-key": "k-12345678", "x-region": "eu-west-1"})
        async with running(remote) as client:
            region = await client.call_tool("up_header", {"name": "x-region"})
            key = await client.call_tool("up_header", {"name": "x-api-key"})
    assert region.content[0].text == "eu-west-1"
    assert key.content[0].text == "[redacted]"  # it reached the upstream, and its echo does not reach the caller
    assert "k-12345678" not in repr(remote) + repr(remote.target) + remote.target.describe()
    assert isinstance(remote.target, SseTarget)


async def test_sse_upstream_prompts_resources_and_progress_pass_through() -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    with sse("ll_upstream.py") as upstream:
        async with running(RemoteServer.sse(f"{upstream.url}/sse")) as client:
            await client.call_tool("up_echo", {"text": "p", "steps": 3}, progress_callback=on_progress)
            prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
            [note] = (await client.read_resource("note://up/1/text")).contents
    assert seen == [1, 2, 3]
    assert "up_greet" in prompts
    assert getattr(note, "text", None) == "first note"


async def test_a_killed_sse_upstream_fails_its_calls_and_is_reconnected_when_back(tmp_path: Path) -> None:
    with sse("ll_upstream.py") as upstream:
        remote = RemoteServer.sse(f"{upstream.url}/sse", backoff=Backoff(initial=0.1, maximum=0.2))
        async with running(remote) as client:
            outcome: list[Any] = []
            started = tmp_path / "started"

            async def slow_call() -> None:
                outcome.append(await client.call_tool("up_sleep", {"seconds": 30, "started": str(started)}))

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(slow_call)
                    await wait_for_file(started)
                    upstream.process.kill()
            assert outcome[0].is_error and "upstream 'up'" in outcome[0].content[0].text
            upstream.process.wait()
            while remote.connected:  # noqa: ASYNC110 - the supervisor notices the loss on its own
                await anyio.sleep(0.02)
            down = await client.call_tool("up_echo", {"text": "x"})
            assert down.is_error and "not connected" in down.content[0].text
            assert (await client.call_tool("local", {})).content[0].text == "local ok"
            await anyio.to_thread.run_sync(upstream.restart)
            with anyio.fail_after(15):
                await remote.wait_connected()
            back = await client.call_tool("up_echo", {"text": "back"})
            assert back.structured_content == {"echo": "back"}


async def test_an_unreachable_sse_upstream_is_down_with_its_error_and_the_gateway_serves() -> None:
    remote = RemoteServer.sse(f"http://127.0.0.1:{free_port()}/sse", connect_timeout=2)
    async with running(remote) as client:
        listed = await names(client)
        state, error = remote.state, remote.last_error
    assert listed == ["local"]
    assert state == "down" and error is not None and "Connect" in error


def test_an_sse_url_must_be_http() -> None:
    with pytest.raises(ValueError, match="must start with http"):
        RemoteServer.sse("ws://example.com/sse")


async def test_a_message_the_sse_upstream_refuses_fails_its_call_at_once_and_the_upstream_reconnects() -> None:
    """A legacy SSE server behind a balancer answers a POST for a session another replica holds
    with 404 (or 503 when busy): the SDK's writer stops at the first refusal, so the call waited
    for its whole timeout and every later call failed until the stream itself ended."""
    upstream = Server("up")

    @upstream.tool
    def echo(text: str) -> str:
        return text

    refusing = False
    inner = upstream.http_app(legacy_sse=True)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if refusing and scope["type"] == "http" and scope["method"] == "POST":
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await inner(scope, receive, send)

    async with serving(app, lifespan="on") as url:
        remote = RemoteServer.sse(f"{url}/sse", timeout=60, backoff=Backoff(initial=0.1, maximum=0.2))
        async with running(remote) as client:
            refusing = True
            with anyio.fail_after(20):  # (the call's own timeout is 60 s)
                refused = await client.call_tool("up_echo", {"text": "a"})
            assert refused.is_error and "went away" in refused.content[0].text
            with anyio.fail_after(5):
                while remote.last_error is None:  # noqa: ASYNC110 - the supervisor notes it on its own
                    await anyio.sleep(0.01)
            assert "HTTP 503" in remote.last_error
            refusing = False
            with anyio.fail_after(15):
                await remote.wait_connected()
            back = await client.call_tool("up_echo", {"text": "back"})
    assert back.content[0].text == "back" and not back.is_error
