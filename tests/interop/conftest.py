"""Fixtures for driving toolweave servers with clients nobody here wrote.

- `node_tools`: Node 22 and the pinned npm tools, installed once into `.cache/` by
  `tests/node_tools.sh` (the same script `tests/conformance/run.sh` uses). Tests that need them
  are skipped only when the npm registry is unreachable and the cache is cold.
- `interop_url`: `tests/interop/servers.py` served over HTTP on 127.0.0.1 for the module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tests.node import node_tool
from tests.serving import PORT, spawned


@pytest.fixture(scope="session")
def node_tools() -> dict[str, str]:
    """`NODE_BIN` and `INSPECTOR` paths, installing them on first use."""
    return node_tool("inspector", "MCP Inspector")


@pytest.fixture(scope="module")
def interop_url() -> Iterator[str]:
    """`tests.interop.servers` over streamable HTTP, for the whole module."""
    with spawned(sys.executable, "-m", "tests.interop.servers", "http", PORT) as server:
        yield f"{server.url}/mcp"
