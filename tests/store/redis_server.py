"""A real `redis-server` on a free loopback port, that a test can stop and start again.

In CI (`CI` set) a missing `redis-server` is an error: `.ci/run` installs it. Elsewhere the
tests that need it are skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import free_port, wait_for_port


def redis_binary() -> str:
    """The path of `redis-server`, or a skip (a failure in CI) saying it is missing."""
    found = shutil.which("redis-server") or next(
        (path for path in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if Path(path).exists()), None
    )
    if found is None:
        message = "redis-server is not installed (apt-get install -y redis-server; .ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


class RedisServer:
    """One `redis-server` process without persistence, on `port`, with its data in `workdir`."""

    def __init__(self, binary: str, workdir: Path, password: str | None = None) -> None:
        self.binary = binary
        self.workdir = workdir
        self.password = password
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.workdir), "--protected-mode", "yes"]
        if self.password is not None:
            command += ["--requirepass", self.password]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, timeout=20)

    def stop(self) -> None:
        """Kill the server at once (as a crash would)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and self._listening():
            time.sleep(0.02)

    def pause(self) -> None:
        """Stop the server answering, connections left open (as a black-holed network would)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def _listening(self) -> bool:
        import socket

        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def flush(self) -> None:
        """Drop every key (between tests)."""
        subprocess.run(
            [self.binary.replace("redis-server", "redis-cli"), "-p", str(self.port), "flushall"],
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=10,
        )
