"""Fixtures of the server tests: upstream MCP servers served over HTTP on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port, subprocess_env, wait_for_port

UPSTREAMS = Path(__file__).parent / "upstreams"


@pytest.fixture(params=["tw_upstream.py", "ll_upstream.py"])
def http_upstream(request: pytest.FixtureRequest) -> Iterator[str]:
    """The MCP URL of an upstream (toolweave, then bare SDK) serving streamable HTTP in a subprocess."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(UPSTREAMS / request.param), "http", str(port)],
        env=subprocess_env(),
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
