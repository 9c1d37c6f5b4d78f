"""A throwaway `redis-server` on a free loopback port, for the benchmarks that share state in Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def redis_url() -> Iterator[str | None]:
    """`redis://127.0.0.1:<port>/0` of a fresh server for the block, or None without `redis-server`."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", workdir]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.kill()
            process.wait()
