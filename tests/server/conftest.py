"""Fixtures of the server tests: upstream MCP servers served over HTTP on 127.0.0.1."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serving import PORT, spawned

UPSTREAMS = Path(__file__).parent / "upstreams"


@pytest.fixture(params=["tw_upstream.py", "ll_upstream.py"])
def http_upstream(request: pytest.FixtureRequest) -> Iterator[str]:
    """The MCP URL of an upstream (toolweave, then bare SDK) serving streamable HTTP in a subprocess."""
    with spawned(sys.executable, str(UPSTREAMS / request.param), "http", PORT) as server:
        yield f"{server.url}/mcp"
