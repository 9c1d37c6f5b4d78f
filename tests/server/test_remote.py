"""Remote MCP servers mounted under a prefix: real stdio and HTTP upstreams, through an mcp client."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.conftest import subprocess_env
from tests.serving import PORT, serving, spawned
from toolweave import Context, Server, Tool
from toolweave.mcp import upstream_transport
from toolweave.mcp.upstream_transport import LOGGED_LINE, MAX_EVENT_BYTES
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.testing import RecordingMiddleware, connect

from .changes import names, watched

UPSTREAMS = Path(__file__).parent / "upstreams"


def stdio_remote(script: str = "tw_upstream.py", **options: Any) -> RemoteServer:
    return RemoteServer.stdio(sys.executable, [str(UPSTREAMS / script)], env=subprocess_env(), **options)


def gateway_with(remote: RemoteServer, prefix: str = "up") -> Server:
    gateway = Server("gateway")

    @gateway.tool
    def local() -> str:
        return "local ok"

    gateway.mount(remote, prefix=prefix)
    return gateway


@asynccontextmanager
async def running(remote: RemoteServer, prefix: str = "up", mode: str = "auto") -> AsyncIterator[Any]:
    async with connect(gateway_with(remote, prefix), mode=mode) as client:
        yield client


def alive(pid: int) -> bool:
    """Whether `pid` exists at all (a zombie still does)."""
    return Path(f"/proc/{pid}").exists()


async def upstream_pid(client: Any, prefix: str = "up") -> int:
    return int((await client.call_tool(f"{prefix}_pid", {})).content[0].text)


async def wait_for_file(path: Path) -> None:
    """Return once another process has made `path`."""
    with anyio.fail_after(5):
        while not await anyio.Path(path).exists():  # noqa: ASYNC110 - made by another process
            await anyio.sleep(0.02)


async def wait_for_text(path: Path) -> str:
    """The text of `path` once another process has written some (`write_text` makes the file
    empty before it writes: seen in between, it read as '')."""
    file = anyio.Path(path)
    with anyio.fail_after(5):
        while not (await file.exists() and await file.read_text()):  # noqa: ASYNC110 - written by another process
            await anyio.sleep(0.02)
    return await file.read_text()


@pytest.mark.parametrize("script", ["tw_upstream.py", "ll_upstream.py"])
async def test_stdio_upstream_tools_are_listed_and_called(script: str) -> None:
    async with running(stdio_remote(script)) as client:
        listed = await names(client)
        result = await client.call_tool("up_echo", {"text": "hello"})
    assert "local" in listed and "up_echo" in listed and "up_sleep" in listed
    assert result.structured_content == {"echo": "hello"}
    assert not result.is_error


async def test_an_upstream_whose_tool_list_loops_back_is_listed_once_not_forever() -> None:
    remote = RemoteServer.stdio(
        sys.executable, [str(UPSTREAMS / "ll_upstream.py"), "looping-cursor"], env=subprocess_env()
    )
    with anyio.fail_after(20):
        async with running(remote) as client:
            listed = await names(client)
    assert "up_echo" in listed and len(listed) == len(set(listed))  # each page's tools once


async def test_legacy_client_reaches_a_stdio_upstream() -> None:
    async with running(stdio_remote(), mode="legacy") as client:
        result = await client.call_tool("up_echo", {"text": "old"})
    assert result.structured_content == {"echo": "old"}


async def test_upstream_tool_descriptions_are_converted() -> None:
    async with running(stdio_remote("ll_upstream.py")) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    echo = tools["up_echo"]
    assert echo.title == "Echo"
    assert echo.input_schema["required"] == ["text"]
    assert echo.output_schema is not None and echo.output_schema["required"] == ["echo"]
    assert echo.annotations is not None
    assert echo.annotations.read_only_hint and echo.annotations.idempotent_hint
    assert echo.meta == {"example.com/origin": "ll_upstream"}


async def test_remote_tools_carry_their_origin_and_validate_at_the_boundary() -> None:
    remote = stdio_remote("ll_upstream.py")
    gateway = gateway_with(remote)
    async with gateway:
        entry = gateway.catalog.get("up_echo")
        refused = await gateway.call_tool("up_echo", {"steps": 1})
    assert entry.tool.root.origin is not None
    assert entry.tool.root.origin.kind == "remote" and entry.tool.root.origin.original_name == "echo"
    assert refused.is_error and "text: Field required" in refused.text


@pytest.mark.parametrize(
    ("script", "tool", "text", "structured"),
    [
        ("ll_upstream.py", "up_fail", "boom", None),
        ("tw_upstream.py", "up_raw", "half done", {"done": 1}),
        ("tw_upstream.py", "up_fail", "boom", None),
    ],
)
async def test_upstream_error_results_pass_through_unchanged(
    script: str, tool: str, text: str, structured: Any
) -> None:
    async with running(stdio_remote(script)) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error
    assert result.content[0].text == text
    assert result.structured_content == structured


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_upstream_results_meta_passes_without_the_protocols_own_keys(mode: str) -> None:
    """`io.modelcontextprotocol/serverInfo` describes the upstream's answer: the gateway's client
    hears the gateway's (2026-07-28) or none (the handshake era), and the upstream's other keys."""
    async with running(stdio_remote(), mode=mode) as client:
        result = await client.call_tool("up_raw", {})
    meta = result.meta or {}
    assert meta["acme.com/trace"] == "t-1"
    server_info = meta.get("io.modelcontextprotocol/serverInfo")
    assert server_info == ({"name": "gateway", "version": server_info["version"]} if mode == "auto" else None)


async def test_a_toolweave_upstream_refuses_its_own_off_schema_result() -> None:
    gateway = gateway_with(stdio_remote())
    async with gateway:
        result = await gateway.call_tool("up_loose", {})
    assert result.is_error and result.text.startswith("Error calling tool 'loose' (incident ")  # the upstream's own


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_upstream_progress_reaches_the_caller(mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with running(stdio_remote("ll_upstream.py"), mode=mode) as client:
        result = await client.call_tool("up_echo", {"text": "x", "steps": 3}, progress_callback=on_progress)
    assert result.structured_content == {"echo": "x"}
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("script", ["tw_upstream.py", "ll_upstream.py"])
async def test_cancelling_a_call_cancels_it_upstream(script: str, tmp_path: Path) -> None:
    marker, started = tmp_path / "marker", tmp_path / "started"
    arguments = {"seconds": 30, "marker": str(marker), "started": str(started)}
    async with running(stdio_remote(script)) as client:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(client.call_tool, "up_sleep", arguments)
            await wait_for_file(started)
            tasks.cancel_scope.cancel()
        assert await wait_for_text(marker) == "cancelled"
        still = await client.call_tool("up_echo", {"text": "still here"})
        assert still.structured_content == {"echo": "still here"}


async def test_the_callers_deadline_becomes_the_upstream_timeout(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    gateway = gateway_with(stdio_remote())
    async with gateway:
        ctx = Context(server=gateway, deadline=anyio.current_time() + 1.0)
        result = await gateway.call_tool("up_sleep", {"seconds": 30, "marker": str(marker)}, ctx=ctx)
        assert result.is_error and "timed out" in result.text
        assert await wait_for_text(marker) == "cancelled"


async def test_concurrent_calls_share_one_session() -> None:
    remote = stdio_remote()
    async with running(remote) as client:
        session = remote._upstream.session if remote._upstream else None
        pids: list[int] = []

        async def one() -> None:
            pids.append(await upstream_pid(client))

        async with anyio.create_task_group() as tasks:
            for _ in range(20):
                tasks.start_soon(one)
        assert remote._upstream is not None and remote._upstream.session is session
    assert len(set(pids)) == 1 and len(pids) == 20


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_upstream_list_changed_refreshes_and_notifies_the_callers(mode: str) -> None:
    gateway = gateway_with(stdio_remote())
    async with watched(gateway, mode) as (client, changes):
        assert "up_fresh" not in await names(client)
        await client.call_tool("up_grow", {"name": "fresh"})
        await changes.wait_for(1)
        assert "up_fresh" in await names(client)
        assert (await client.call_tool("up_fresh", {})).content[0].text == "fresh"


async def test_bare_sdk_upstream_list_changed_is_followed() -> None:
    gateway = gateway_with(stdio_remote("ll_upstream.py"))
    async with watched(gateway, "legacy") as (client, changes):
        await client.call_tool("up_enable_extra", {})
        await changes.wait_for(1)
        assert (await client.call_tool("up_extra", {})).content[0].text == "extra!"


async def test_killed_upstream_fails_calls_fast_keeps_the_rest_working_and_restarts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    remote = stdio_remote(backoff=Backoff(initial=0.05))
    started = tmp_path / "started"
    async with running(remote) as client:
        pid = await upstream_pid(client)
        outcome: list[Any] = []

        async def slow_call() -> None:
            outcome.append(await client.call_tool("up_sleep", {"seconds": 30, "started": str(started)}))

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(slow_call)
                await wait_for_file(started)
                os.kill(pid, signal.SIGKILL)
        result = outcome[0]
        assert result.is_error
        assert result.content[0].text == "upstream 'up' went away during the call to 'up_sleep'"
        assert (await client.call_tool("local", {})).content[0].text == "local ok"
        assert "up_echo" in await names(client)
        with anyio.fail_after(10):
            await remote.wait_connected()
        assert await upstream_pid(client) != pid
        assert not alive(pid)
    said = [record.getMessage() for record in caplog.records if record.name == "toolweave.upstream"]
    lost = next(index for index, line in enumerate(said) if "failed: the connection was lost" in line)
    assert any(line.startswith("[up] connected again to ") for line in said[lost:])  # as loud as the loss


async def test_call_while_the_upstream_is_down_fails_at_once() -> None:
    remote = stdio_remote(backoff=Backoff(initial=30))
    async with running(remote) as client:
        os.kill(await upstream_pid(client), signal.SIGKILL)
        with anyio.fail_after(5):
            while remote.connected:  # noqa: ASYNC110 - waiting for the supervisor to notice
                await anyio.sleep(0.02)
        result = await client.call_tool("up_echo", {"text": "x"})
    assert result.is_error
    assert result.content[0].text == "upstream 'up' is not connected; tool 'up_echo' is unavailable"


async def test_no_upstream_process_is_left_after_shutdown() -> None:
    remote = stdio_remote()
    async with running(remote) as client:
        pid = await upstream_pid(client)
        assert alive(pid)
    assert not alive(pid)


async def test_upstream_stderr_is_logged_with_the_mount_name(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.upstream")
    async with running(stdio_remote(), prefix="tw") as client:
        await names(client)
    lines = [record.getMessage() for record in caplog.records if record.name == "toolweave.upstream"]
    assert "[tw] tw-upstream starting" in lines


async def test_after_shutdown_the_last_tools_stay_listed_and_a_call_connects_again() -> None:
    gateway = gateway_with(stdio_remote())
    async with gateway:
        pass
    assert "up_echo" in [tool.name for tool in gateway.catalog.tools]
    result = await gateway.call_tool("up_echo", {"text": "x"})
    assert result.structured_content == {"echo": "x"}
    assert not gateway.running


def test_a_remote_lists_nothing_before_it_first_connects() -> None:
    gateway = gateway_with(stdio_remote())
    assert [tool.name for tool in gateway.catalog.tools] == ["local"]


async def test_an_upstream_that_cannot_start_leaves_the_rest_working(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    remote = RemoteServer.stdio("/nonexistent/mcp-server", connect_timeout=5, backoff=Backoff(initial=30))
    async with running(remote, prefix="gone") as client:
        assert await names(client) == ["local"]
        assert (await client.call_tool("local", {})).content[0].text == "local ok"
    messages = [record.getMessage() for record in caplog.records]
    failures = [line for line in messages if "[gone] upstream /nonexistent/mcp-server failed" in line]
    assert failures and "FileNotFoundError" in failures[0]


async def test_an_upstream_that_crashes_at_start_is_logged_and_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.upstream")
    crash = "import sys; print('bad config', file=sys.stderr); sys.exit(3)"
    remote = RemoteServer.stdio(sys.executable, ["-c", crash], backoff=Backoff(initial=0.05, maximum=0.05))
    async with running(remote, prefix="crashy") as client:
        with anyio.fail_after(5):
            while sum(r.getMessage() == "[crashy] bad config" for r in caplog.records) < 2:  # noqa: ASYNC110
                await anyio.sleep(0.02)
        assert await names(client) == ["local"]


async def test_a_silent_upstream_does_not_hold_up_the_gateway() -> None:
    silent = RemoteServer.stdio(sys.executable, ["-c", "import time; time.sleep(60)"], connect_timeout=0.3)
    with anyio.fail_after(10):
        async with running(silent, prefix="silent") as client:
            assert await names(client) == ["local"]
            assert (await client.call_tool("local", {})).content[0].text == "local ok"
    assert not silent.connected


@dataclass(frozen=True)
class Describe:
    text: str

    def apply(self, tool: Tool) -> Tool:
        return tool.derive(self, description=self.text)


async def test_transforms_and_middleware_apply_to_remote_tools_by_glob() -> None:
    recorder = RecordingMiddleware("gh", tools="gh_*")
    gateway = Server("gateway", middleware=[recorder])
    gateway.add_tool(lambda: "x", name="local")
    gateway.mount(stdio_remote(), prefix="gh")
    gateway.add_transform(Describe("via github"), tools="gh_*")
    async with connect(gateway) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        await client.call_tool("local", {})
        await client.call_tool("gh_echo", {"text": "t"})
    assert tools["gh_echo"].description == "via github" and tools["local"].description != "via github"
    assert [call.tool.name for call in recorder.calls] == ["gh_echo"]


# -- HTTP ---------------------------------------------------------------------------------------


async def test_http_upstream_tools_are_listed_called_and_report_progress(http_upstream: str) -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    remote = RemoteServer.http(http_upstream, headers={"x-test": "1"})
    async with running(remote) as client:
        assert "up_echo" in await names(client)
        result = await client.call_tool("up_echo", {"text": "web"})
        failed = await client.call_tool("up_fail", {})
        if "up_count" in await names(client):
            await client.call_tool("up_count", {"steps": 2}, progress_callback=on_progress)
        else:
            await client.call_tool("up_echo", {"text": "p", "steps": 2}, progress_callback=on_progress)
    assert result.structured_content == {"echo": "web"}
    assert failed.is_error and failed.content[0].text == "boom"
    assert seen == [1, 2]


async def test_an_http_upstream_quiet_for_long_is_still_heard_when_its_list_changes(
    http_upstream: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK counts each silent read timeout of the upstream's message stream as a failure and
    opens it no more after two: an upstream quiet for ten minutes (the 300 s read timeout twice)
    was never heard from again, its list changes lost while it showed as up. Scaled to 0.5 s."""
    monkeypatch.setattr(upstream_transport, "IDLE_READ", 0.5)
    gateway = gateway_with(RemoteServer.http(http_upstream))

    async def listed() -> list[str]:
        return [tool.name for tool in await gateway.list_tools()]

    async with gateway:
        toolweave_upstream = "up_grow" in await listed()
        await anyio.sleep(2)  # four read timeouts' worth of silence
        if toolweave_upstream:
            await gateway.call_tool("up_grow", {"name": "fresh"})
        else:
            await gateway.call_tool("up_enable_extra", {})
        with anyio.fail_after(10):
            while ("up_fresh" if toolweave_upstream else "up_extra") not in await listed():  # noqa: ASYNC110
                await anyio.sleep(0.05)


async def test_a_2026_http_upstream_quiet_for_long_is_still_heard_when_its_list_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its `subscriptions/listen` stream broke at the first silent read timeout (300 s) and was
    not opened again: every later list change was lost. Scaled to 0.5 s."""
    monkeypatch.setattr(upstream_transport, "IDLE_READ", 0.5)
    modern_only = Path(__file__).parents[1] / "reliability" / "servers" / "modern_only.py"
    with spawned(sys.executable, str(modern_only), "http", PORT) as upstream:
        remote = RemoteServer.http(f"{upstream.url}/mcp")
        gateway = gateway_with(remote)
        async with gateway:
            await anyio.sleep(2)  # the stream broke, silent, more than once
            await gateway.call_tool("up_grow", {"name": "fresh"})
            with anyio.fail_after(15):
                while "up_fresh" not in [tool.name for tool in await gateway.list_tools()]:  # noqa: ASYNC110
                    await anyio.sleep(0.05)
    assert remote.era == "2026"


async def test_killed_http_upstream_fails_the_call_and_is_reconnected_when_back(tmp_path: Path) -> None:
    with spawned(sys.executable, str(UPSTREAMS / "tw_upstream.py"), "http", PORT) as upstream:
        remote = RemoteServer.http(f"{upstream.url}/mcp", backoff=Backoff(initial=0.1, maximum=0.2))
        async with running(remote) as client:
            outcome: list[Any] = []

            started = tmp_path / "started"

            async def slow_call() -> None:
                outcome.append(await client.call_tool("up_sleep", {"seconds": 30, "started": str(started)}))

            with anyio.fail_after(5):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(slow_call)
                    await wait_for_file(started)
                    upstream.process.kill()
            assert outcome[0].is_error and "upstream 'up'" in outcome[0].content[0].text
            assert (await client.call_tool("local", {})).content[0].text == "local ok"
            await anyio.to_thread.run_sync(upstream.restart)
            with anyio.fail_after(10):
                await remote.wait_connected()
            back = await client.call_tool("up_echo", {"text": "back"})
            assert back.structured_content == {"echo": "back"}


def test_http_url_must_be_http() -> None:
    with pytest.raises(ValueError, match="must start with http"):
        RemoteServer.http("ftp://example.com/mcp")


def test_stdio_args_must_be_a_list() -> None:
    with pytest.raises(TypeError, match="list of strings"):
        RemoteServer.stdio("server", "--flag")  # type: ignore[arg-type]


async def test_a_stdio_upstream_runs_in_its_working_directory() -> None:
    remote = RemoteServer.stdio(sys.executable, ["tw_upstream.py"], env=subprocess_env(), cwd=UPSTREAMS)
    async with running(remote) as client:
        result = await client.call_tool("up_echo", {"text": "relative"})
    assert result.structured_content == {"echo": "relative"}


def test_backoff_doubles_up_to_its_maximum() -> None:
    delays = iter(Backoff(initial=0.1, maximum=0.5).delays())
    assert [round(next(delays), 2) for _ in range(5)] == [0.1, 0.2, 0.4, 0.5, 0.5]


@pytest.mark.parametrize(
    ("command", "args", "name"),
    [
        ("github-mcp-server", ["stdio"], "github-mcp-server"),
        ("/usr/bin/python3", ["/srv/notes_server.py"], "notes_server"),
        ("npx", ["-y", "@modelcontextprotocol/server-everything"], "server-everything"),
    ],
)
def test_a_stdio_remote_is_named_after_its_command(command: str, args: list[str], name: str) -> None:
    assert RemoteServer.stdio(command, args).name == name


def test_mount_names_an_unnamed_remote_after_its_prefix_but_keeps_an_explicit_name() -> None:
    gateway = Server("gateway")
    unnamed, named = RemoteServer.stdio("a-server"), RemoteServer.stdio("b-server", name="bee")
    gateway.mount(unnamed, prefix="a")
    gateway.mount(named, prefix="b")
    assert (unnamed.name, named.name) == ("a", "bee")


def test_secrets_stay_out_of_reprs() -> None:
    stdio = RemoteServer.stdio("server", env={"TOKEN": "s3cret"})
    http = RemoteServer.http("https://example.com/mcp", headers={"Authorization": "Bearer s3cret"})
    assert "s3cret" not in repr(stdio) + repr(stdio.target) + repr(http) + repr(http.target)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_remote_server_can_be_served_on_its_own_as_a_proxy(mode: str) -> None:
    async with connect(stdio_remote("ll_upstream.py"), mode=mode) as client:
        listed = await names(client)
        result = await client.call_tool("echo", {"text": "proxied"})
        prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
        [note] = (await client.read_resource("note://1/text")).contents
    assert listed == ["echo", "fail", "sleep", "enable_extra"]
    assert result.structured_content == {"echo": "proxied"}
    assert prompts == ["greet", "plain"] and getattr(note, "text", None) == "first note"


def test_the_module_examples_run() -> None:
    import doctest

    import toolweave.server.remote as module

    assert doctest.testmod(module).failed == 0


async def test_two_unprefixed_upstreams_with_the_same_names_keep_serving_with_the_first_and_say_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The clash appears only once both upstreams have connected, while the gateway serves: under
    # on_duplicate="error" it is logged, the first claim kept, and lists and calls go on.
    gateway = Server("gateway")
    gateway.mount(stdio_remote())
    gateway.mount(stdio_remote())
    with caplog.at_level(logging.ERROR, logger="toolweave.server"):
        async with connect(gateway) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            echoed = await client.call_tool("echo", {"text": "hi"})
    assert listed.count("echo") == 1 and "sleep" in listed
    assert not echoed.is_error and echoed.structured_content == {"echo": "hi"}
    clashes = [r.getMessage() for r in caplog.records if "claimed twice" in r.getMessage()]
    assert clashes and "tool name 'echo' is claimed twice" in clashes[0]
    assert "the first one is kept (give the servers prefixes to expose both" in clashes[0]


async def test_an_upstream_tool_whose_prefixed_name_is_too_long_is_left_out_and_the_rest_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Its list arrives while the gateway serves: the invalid name stopped every list and call."""
    gateway = Server("gateway")
    gateway.add_tool(lambda: "pong", name="ping")
    gateway.mount(stdio_remote(), prefix="p" * 120)
    with caplog.at_level(logging.ERROR, logger="toolweave.server"):
        async with connect(gateway) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            ponged = await client.call_tool("ping", {})
    assert "ping" in listed and f"{'p' * 120}_echo" in listed and not ponged.is_error
    assert max(map(len, listed)) <= 128 and f"{'p' * 120}_grow_components" not in listed
    left = [r.getMessage() for r in caplog.records if "is not valid" in r.getMessage()]
    assert left and "it is left out (give its server a shorter prefix)" in left[0]


async def test_what_an_upstream_says_beside_its_answers_reaches_the_log_cut_to_a_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 4 MiB stderr line without a newline was kept whole (in memory, in the log and in the
    last lines kept to explain a failure), and so was a 1 MiB log message."""
    caplog.set_level(logging.INFO, logger="toolweave.upstream")
    script = [str(UPSTREAMS / "raw_upstream.py"), "long-lines"]
    remote = RemoteServer.stdio(sys.executable, script, env=subprocess_env())
    async with running(remote) as client:
        result = await client.call_tool("up_echo", {})
    said = [record.getMessage() for record in caplog.records if record.name == "toolweave.upstream"]
    assert not result.is_error and max(len(line) for line in said) < 9000
    assert f"[up] {'x' * LOGGED_LINE} [...]" in said and "[up] done" in said
    assert f"[up] log info: {'y' * LOGGED_LINE} [...]" in said


async def test_an_http_upstreams_answer_past_a_mebibyte_comes_through(http_upstream: str) -> None:
    """An answer over 1 MiB in an event stream (the SDK's default limit) lost the session: the
    call said the upstream "went away", and so did every call until it was connected again."""
    remote = RemoteServer.http(http_upstream)
    async with running(remote) as client:
        big = await client.call_tool("up_echo", {"text": "x" * 1_500_000})
        after = await client.call_tool("up_echo", {"text": "small"})
    assert not big.is_error and big.structured_content == {"echo": "x" * 1_500_000}
    assert not after.is_error and after.structured_content == {"echo": "small"}


async def oversized_answers(request: Request) -> Response:
    """A hand-written streamable HTTP upstream whose tool `big` answers in an event past
    `MAX_EVENT_BYTES`, and `small` in a small one."""
    if request.method != "POST":
        return Response(status_code=405)
    message = await request.json()
    if "id" not in message:
        return Response(status_code=202)
    if message["method"] == "initialize":
        info = {"name": "oversized", "version": "0"}
        result: Any = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
    elif message["method"] == "tools/list":
        result = {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in ("big", "small")]}
    elif message["method"] == "tools/call":
        text = "x" * MAX_EVENT_BYTES if message["params"]["name"] == "big" else "small"
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}]}}
        return Response(f"event: message\ndata: {json.dumps(answer)}\n\n", media_type="text/event-stream")
    else:
        return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
    return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "result": result})


async def test_an_http_answer_past_the_event_limit_fails_its_call_and_the_session_serves_on() -> None:
    """It failed with "went away" and dropped the session, failing every call in flight on it."""
    async with serving(Route("/mcp", oversized_answers, methods=["GET", "POST", "DELETE"])) as url:
        remote = RemoteServer.http(f"{url}/mcp", backoff=Backoff(initial=60))
        async with running(remote) as client:
            big = await client.call_tool("up_big", {})
            state = remote.state
            small = await client.call_tool("up_small", {})
    limit = f"Server-sent event exceeded the {MAX_EVENT_BYTES} byte limit."
    assert big.is_error
    assert big.content[0].text == f"upstream 'up' answered the call to 'up_big' with a stream that failed: {limit}"
    assert state == "up" and not small.is_error and small.content[0].text == "small"


async def test_an_upstreams_invalid_result_is_logged_in_one_line_without_its_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A content block of a type MCP does not have was logged as pydantic's report, one error
    per content type with the block's values quoted, and a traceback."""
    script = [str(UPSTREAMS / "raw_upstream.py")]
    async with running(RemoteServer.stdio(sys.executable, script, env=subprocess_env())) as client:
        result = await client.call_tool("up_hologram", {})
    [failure] = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert result.is_error and "incident" in result.content[0].text and failure.exc_info is not None
    assert str(failure.exc_info[1]) == (
        "upstream 'up' answered the call to 'hologram' with invalid CallToolResult: content.0.TextContent.text: "
        "Field required (and 10 more)"
    )
    assert "secret-hologram-data" not in caplog.text and "ValidationError" not in caplog.text


async def test_an_upstream_tool_the_sdk_would_refuse_is_left_out_and_the_rest_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One tool whose input schema is `{}` failed the whole list: the upstream never connected,
    restarted for ever, and none of its tools was served."""
    script = [str(UPSTREAMS / "raw_upstream.py"), "bad-tool"]
    async with running(RemoteServer.stdio(sys.executable, script, env=subprocess_env())) as client:
        listed = await names(client)
        result = await client.call_tool("up_echo", {"text": "hi"})
    assert listed == ["local", "up_echo", "up_hologram"] and not result.is_error
    skipped = [record.getMessage() for record in caplog.records if "skipping" in record.getMessage()]
    assert skipped == [
        "[up] skipping an upstream tools item 'sloppy': invalid ListToolsResult: inputSchema.type: Field required"
    ]


async def test_a_tool_the_upstream_lists_twice_is_warned_of_and_the_last_kept(caplog: pytest.LogCaptureFixture) -> None:
    """The first one was dropped without a word."""
    script = [str(UPSTREAMS / "raw_upstream.py"), "twice"]
    async with running(RemoteServer.stdio(sys.executable, script, env=subprocess_env())) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tools["up_echo"].description == "the second"
    assert "[up] the upstream lists tool named 'echo' more than once; the last one is kept" in caplog.messages
