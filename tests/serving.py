"""Serve on a free loopback port for the length of a block: the one place tests start HTTP servers.

- `serving(app)` runs an ASGI app with uvicorn in the test's own event loop (inside a test);
- `served(app)` runs it in a thread with its own loop (for fixtures, whose setup and teardown run
  in different tasks, and for code that blocks, such as fetching an OpenAPI document);
- `spawned(*command)` runs a server process (a script, `python -m ...`), each `PORT` in its
  command replaced by the port; `toolweave_served(config, *options)` is `toolweave serve CONFIG
  --transport http` that way, as an operator runs it;
- `toolweave_announced(config, *options)` is `toolweave serve` on `--port 0`: the URL is the one
  it announces on stderr (for `--workers`, whose parent picks the port);
- `await toolweave_started(config, *options)` is `toolweave serve CONFIG --transport http` as an
  anyio process in a session of its own, returned once it listens, for a test that signals it
  and awaits its exit itself.

Each yields once the server accepts connections; a process that exits before it listens fails the
test with its exit status and the end of its stderr.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import IO, Any

import anyio
import uvicorn
from anyio.abc import Process

from tests.acceptance.cli_helpers import COMMAND
from tests.conftest import ROOT, free_port, subprocess_env, wait_for_port

PORT = "{port}"
"""Stands in a `spawned` command for the port the server is to listen on."""
START_TIMEOUT = 20.0


def _server(app: Any, port: int | None, config: dict[str, Any]) -> tuple[uvicorn.Server, str]:
    port = free_port() if port is None else port
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="none", **config))
    return server, f"http://127.0.0.1:{port}"


@asynccontextmanager
async def serving(app: Any, *, port: int | None = None, **config: Any) -> AsyncIterator[str]:
    """`http://127.0.0.1:<port>`, where `app` answers (in this event loop) until the block ends;
    on a free port, or on `port` (to bring a server back where it was)."""
    server, url = _server(app, port, config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.serve)
        with anyio.fail_after(START_TIMEOUT):
            while not server.started:  # uvicorn offers no event to wait on  # noqa: ASYNC110
                await anyio.sleep(0.01)
        try:
            yield url
        finally:
            server.should_exit = True


@contextmanager
def served(app: Any, **config: Any) -> Iterator[str]:
    """`http://127.0.0.1:<port>`, where `app` answers (in a thread of its own) until the block ends."""
    server, url = _server(app, None, config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for_port(int(url.rsplit(":", 1)[1]), START_TIMEOUT)
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class Spawned:
    """A server process listening on `port`: `url` is `http://127.0.0.1:<port>`, `process` the one
    running now (`restart()` starts the command again on the same port after it has ended)."""

    def __init__(self, command: tuple[str, ...], options: dict[str, Any]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = [part.replace(PORT, str(self.port)) for part in command]
        self.stderr: Any = options.pop("stderr", None)
        self.options = {"cwd": ROOT, "env": subprocess_env(), "stdout": subprocess.DEVNULL} | options
        self.process: subprocess.Popen[Any]

    def start(self) -> None:
        """Start the command and return once it accepts connections."""
        with tempfile.TemporaryFile() as log:  # the child keeps writing to it; read if it fails to start
            stderr = log if self.stderr is None else self.stderr
            self.process = subprocess.Popen(self.command, stderr=stderr, **self.options)
            try:
                self._wait_listening(log)
            except BaseException:
                self.stop()
                raise

    def restart(self) -> None:
        """The command again on the same port, once the process before it has ended."""
        self.process.wait(10)
        self.start()

    def stop(self) -> None:
        """Terminate the process (if it still runs), reap it and close its pipes."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()

    def _wait_listening(self, log: IO[bytes]) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise _exited(self.command, self.process.returncode, log)
            try:
                wait_for_port(self.port, timeout=0.2)
                return
            except TimeoutError:
                continue
        raise _not_listening(self.command, self.port)


def _exited(command: list[str], status: int | None, log: IO[bytes]) -> RuntimeError:
    """The failure of a server process that ended before it listened: its status and stderr's end."""
    log.seek(0)
    tail = log.read().decode(errors="replace")[-2000:]
    return RuntimeError(f"{command} exited with {status} before listening:\n{tail}")


def _not_listening(command: list[str], port: int) -> TimeoutError:
    return TimeoutError(f"{command} did not listen on port {port} within {START_TIMEOUT}s")


def _serve_http(config: Any, port: str, options: tuple[str, ...]) -> list[str]:
    """The command line of `toolweave serve CONFIG --transport http --port PORT OPTIONS...`."""
    return [*COMMAND, "serve", str(config), "--transport", "http", "--port", port, *options]


@contextmanager
def spawned(*command: str, **popen: Any) -> Iterator[Spawned]:
    """`command` (`PORT` in it replaced by a free port) running from the repository root until the
    block ends; `popen` overrides `subprocess.Popen`'s options (stdout and stderr: discarded)."""
    server = Spawned(command, popen)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def toolweave_served(config: Any, *options: str, **popen: Any) -> Iterator[Spawned]:
    """`toolweave serve CONFIG --transport http` on a free port, `options` appended, until the block ends."""
    with spawned(*_serve_http(config, PORT, options), **popen) as server:
        yield server


@contextmanager
def toolweave_announced(
    config: Any, *options: str, stdout: IO[Any] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`toolweave serve CONFIG --transport http --port 0`, `options` appended: the MCP URL it
    announces once it listens, and the process, until the block ends (its stdout: `stdout`, else
    this process's)."""
    process = subprocess.Popen(
        _serve_http(config, "0", options), stdout=stdout, stderr=subprocess.PIPE, text=True, env=subprocess_env()
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            found = re.search(r"at (http://\S+/mcp)", line)
            if found:
                yield found.group(1), process
                return
        raise RuntimeError(f"toolweave serve did not start (status {process.wait(timeout=10)})")
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


async def toolweave_started(config: Any, *options: str, stderr: Any = None) -> tuple[Process, str]:
    """`toolweave serve CONFIG --transport http` on a free port, `options` appended, and
    `http://127.0.0.1:<port>`, once it accepts connections.

    The process runs in a session of its own (a signal sent to it reaches it alone) with `PYTHON`
    set to this interpreter; its stdout is discarded, its stderr goes to `stderr` (default: a
    temporary file, whose end a failure to start shows). The caller ends the process; this only
    ends one that fails to start.
    """
    port = free_port()
    command = _serve_http(config, str(port), options)
    with tempfile.TemporaryFile() as log:  # the child keeps writing to it; read if it fails to start
        process = await anyio.open_process(
            command,
            env=subprocess_env(PYTHON=sys.executable),
            stdout=subprocess.DEVNULL,
            stderr=log if stderr is None else stderr,
            start_new_session=True,
        )
        try:
            await _until_listening(process, port, command, log)
        except BaseException:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    process.kill()
                await process.wait()
            raise
    return process, f"http://127.0.0.1:{port}"


async def _until_listening(process: Process, port: int, command: list[str], log: IO[bytes]) -> None:
    deadline = anyio.current_time() + START_TIMEOUT
    while process.returncode is None:
        try:
            stream = await anyio.connect_tcp("127.0.0.1", port)
        except OSError:
            if anyio.current_time() > deadline:
                raise _not_listening(command, port) from None
            await anyio.sleep(0.05)
            continue
        await stream.aclose()
        return
    raise _exited(command, process.returncode, log)


RAW_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
"""The headers of a raw streamable-HTTP request (a client that accepts both answer forms)."""
RAW_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
"""A handshake-era `initialize`, for tests that speak raw HTTP."""
