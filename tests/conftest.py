"""Shared fixtures: free ports, subprocess environments, readiness waits."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.auth.issuer import Issuer

ROOT = Path(__file__).resolve().parent.parent


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child Python process that must import this checkout's toolweave."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_python(source: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`source` run by this interpreter in a fresh process (this checkout's toolweave importable,
    `env` added), its output captured as text; at most a minute."""
    return subprocess.run(
        [sys.executable, "-c", source],
        env=subprocess_env(**env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    """Block until something accepts connections on 127.0.0.1:`port`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on port {port} within {timeout}s")


@pytest.fixture
def python() -> str:
    """The interpreter running the tests, for subprocess servers."""
    return sys.executable


@pytest.fixture
def untraced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Catalogs compile as without an OpenTelemetry SDK, even after a test installed one (the
    global tracer provider cannot be unset; a traced mount wraps each level in a span)."""
    monkeypatch.setattr("toolweave.server.mount.tracing_configured", lambda: False)


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    """A real token issuer on 127.0.0.1 (JWKS, introspection and token endpoints; `tests.auth.issuer`)."""
    from tests.auth.issuer import Issuer
    from tests.serving import served

    issuer = Issuer()
    with served(issuer.app()) as url:
        issuer.base_url = url
        yield issuer
