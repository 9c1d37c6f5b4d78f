"""SIGTERM/SIGINT on `toolweave serve`: in-flight calls finish within the grace period, the rest
are answered, upstream processes are reaped, and the exit status is 0."""

from __future__ import annotations

import signal
import time

import anyio
import httpx2
import pytest

from .cli import descendants, living, serve_http, serve_stdio, terminate
from .http import call
from .raw import SERVERS, RawStdio

SHUTTING_DOWN = -32000


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_stdio_serve_drains_answers_and_exits_0(sig: int) -> None:
    raw = await serve_stdio("--grace", "2")
    await raw.call(1, "local_sleep", {"seconds": 0.8})
    await raw.call(2, "up_sleep", {"seconds": 60})
    await raw.call(3, "local_sleep", {"seconds": 60})
    await anyio.sleep(0.5)  # the calls are running
    children = descendants(raw.process.pid)
    assert children, "the stdio upstream runs below the server"
    terminate(raw.process, sig)
    await anyio.sleep(0.1)
    await raw.send(b'{"jsonrpc":"2.0","id":4,"method":"ping"}')
    answers = {}
    while len(answers) < 4:
        message = await raw.receive(within=15)
        answers[message["id"]] = message
    with anyio.fail_after(15):
        status = await raw.process.wait()
    assert status == 0
    assert answers[1]["result"]["content"][0]["text"] == "slept 0.8"
    for request_id in (2, 3):
        assert answers[request_id]["error"]["code"] == SHUTTING_DOWN
        assert "grace period 2s" in answers[request_id]["error"]["message"]
    assert answers[4]["error"] == {
        "code": SHUTTING_DOWN,
        "message": "the server is shutting down and takes no new requests",
    }
    assert living(children) == []


async def test_http_serve_stops_accepting_drains_answers_and_exits_0() -> None:
    process, url = await serve_http("--grace", "2")
    answers: dict[str, dict] = {}
    async with httpx2.AsyncClient(timeout=30) as client:

        async def run(key: str, name: str, seconds: float) -> None:
            answers[key] = await call(client, url, name, {"seconds": seconds})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run, "short", "local_sleep", 0.8)
            tasks.start_soon(run, "long", "local_sleep", 60)
            tasks.start_soon(run, "remote", "up_sleep", 60)
            await anyio.sleep(0.5)
            children = descendants(process.pid)
            terminate(process)
            await anyio.sleep(0.2)
            with pytest.raises(httpx2.ConnectError):
                async with httpx2.AsyncClient() as fresh:
                    await call(fresh, url, "local_echo", {"text": "late"})
    with anyio.fail_after(15):
        status = await process.wait()
    assert status == 0
    assert answers["short"]["result"]["content"][0]["text"] == "slept 0.8"
    for key in ("long", "remote"):
        assert answers[key]["error"]["code"] == SHUTTING_DOWN
        assert "grace period 2s" in answers[key]["error"]["message"]
    assert children and living(children) == []


async def test_a_second_signal_answers_the_calls_in_flight_saying_it_cut_the_grace_period_short() -> None:
    raw = await serve_stdio("--grace", "30")
    await raw.call(1, "local_sleep", {"seconds": 60})
    await anyio.sleep(0.5)  # the call is running
    terminate(raw.process)
    await anyio.sleep(0.3)
    terminate(raw.process)
    answer = await raw.receive(within=10)
    with anyio.fail_after(10):
        assert await raw.process.wait() == 0
    assert answer["id"] == 1 and answer["error"]["code"] == SHUTTING_DOWN
    assert answer["error"]["message"] == (
        "the server shut down before this request finished (a second signal cut the grace period short)"
    )


@pytest.mark.parametrize("entry", ["Server.run", "toolweave serve"])
async def test_a_sync_tool_still_blocking_after_the_grace_period_does_not_keep_the_process_alive(entry: str) -> None:
    # The worker thread cannot be interrupted and the interpreter would wait for it at exit (a
    # minute here, forever for a tool that never returns): the process exits without it.
    if entry == "Server.run":
        raw = await RawStdio.start("blocking.py")
    else:
        raw = await serve_stdio("--grace", "1", config=SERVERS / "blocking.yaml")
    await raw.call(1, "block", {"seconds": 60})
    await anyio.sleep(0.5)  # the thread is blocked in the tool
    started = time.monotonic()
    terminate(raw.process)
    answer = await raw.receive(within=10)
    with anyio.fail_after(10):
        status = await raw.process.wait()
    assert status == 0 and time.monotonic() - started < 8
    assert answer["id"] == 1 and answer["error"]["code"] == SHUTTING_DOWN
    assert "grace period 1s" in answer["error"]["message"]
