"""The official conformance suite's tasks scenarios (`tasks-*`) against `conformance_fixture`.

They are extension scenarios, outside the spec-version suites that `tests/conformance/run.sh`
runs, so they are run here one by one, each expected to pass every check.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.conftest import subprocess_env
from tests.node import node_tool
from tests.serving import PORT, spawned

# The first test may install Node 22 and the suite into .cache/ (about 20 s on a cold cache).
pytestmark = [pytest.mark.node, pytest.mark.timeout(600)]

SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
]


@pytest.fixture(scope="module")
def conformance() -> dict[str, str]:
    """`NODE_BIN` and `CONFORMANCE` paths, installing them on first use."""
    return node_tool("conformance", "the conformance suite")


@pytest.fixture(scope="module")
def fixture_url() -> Iterator[str]:
    """`tests.tasks.conformance_fixture` over streamable HTTP, for the whole module."""
    with spawned(sys.executable, "-m", "tests.tasks.conformance_fixture", PORT) as server:
        yield f"{server.url}/mcp"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_scenario_passes(scenario: str, conformance: dict[str, str], fixture_url: str) -> None:
    env = subprocess_env(PATH=f"{conformance['NODE_BIN']}:{subprocess_env()['PATH']}", NO_COLOR="1")
    command = [conformance["CONFORMANCE"], "server", "--url", fixture_url, "--scenario", scenario, "--force"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)
    summary = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", done.stdout)
    assert summary is not None, done.stdout[-2000:] + done.stderr[-2000:]
    failures = [line for line in done.stdout.splitlines() if "FAILURE" in line]
    assert summary.group(3) == "0" and done.returncode == 0, "\n".join(failures)
