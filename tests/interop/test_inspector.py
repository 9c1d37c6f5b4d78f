"""The MCP Inspector CLI (2.x, Node 22) against toolweave servers: stdio and HTTP, both protocol eras.

Each test runs `mcp-inspector --cli --format json ...` as a user would and reads its output:
`{"result": ...}` on stdout; exit 5 with `{"error": {"code": ...}}` on stderr when a call fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, subprocess_env
from tests.interop.servers import TOOL_NAMES

# The first test may install Node 22 and the Inspector into .cache/ (about 20 s on a cold cache).
pytestmark = [pytest.mark.node, pytest.mark.timeout(300)]

TRANSPORTS = ["stdio", "http"]
ERAS = ["legacy", "modern"]
SERVER_INFO = "io.modelcontextprotocol/serverInfo"


class Inspector:
    """Runs the Inspector CLI against the interop server over one transport."""

    def __init__(self, tools: dict[str, str], tmp: Path, url: str | None) -> None:
        self.binary = tools["INSPECTOR"]
        self.env = subprocess_env(
            PATH=f"{tools['NODE_BIN']}:{subprocess_env()['PATH']}", MCP_CATALOG_PATH=str(tmp / "catalog.json")
        )
        self.url = url

    def target(self) -> list[str]:
        if self.url is not None:
            return [self.url]
        # The Inspector spawns stdio servers with a minimal environment: pass what Python needs.
        return ["--cwd", str(ROOT), "-e", f"PYTHONPATH={ROOT}", sys.executable, "-m", "tests.interop.servers"]

    def run(self, *args: str, era: str = "legacy") -> subprocess.CompletedProcess[str]:
        command = [self.binary, "--cli", "--format", "json", "--protocol-era", era, *self.target(), *args]
        return subprocess.run(command, capture_output=True, text=True, env=self.env, timeout=60, check=False)

    def result(self, *args: str, era: str = "legacy") -> Any:
        done = self.run(*args, era=era)
        assert done.returncode == 0, f"exit {done.returncode}: {done.stderr}"
        return json.loads(done.stdout)["result"]


@pytest.fixture(params=TRANSPORTS)
def inspector(request: pytest.FixtureRequest, node_tools: dict[str, str], tmp_path: Path) -> Inspector:
    url = request.getfixturevalue("interop_url") if request.param == "http" else None
    return Inspector(node_tools, tmp_path, url)


@pytest.mark.parametrize("era", ERAS)
def test_tools_list_follows_the_cursor_through_every_page(inspector: Inspector, era: str) -> None:
    listed = inspector.result("--method", "tools/list", era=era)
    assert [tool["name"] for tool in listed["tools"]] == TOOL_NAMES  # 3 pages of 2


@pytest.mark.parametrize("era", ERAS)
def test_tools_call_passes_arguments_and_returns_structured_content(inspector: Inspector, era: str) -> None:
    result = inspector.result("--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=40", era=era)
    assert result["content"] == [{"type": "text", "text": "42"}]
    assert result["structuredContent"] == {"result": 42} and result["isError"] is False
    assert (SERVER_INFO in result.get("_meta", {})) is (era == "modern")  # the era actually spoken


@pytest.mark.parametrize("era", ERAS)
def test_a_tool_error_is_an_is_error_result(inspector: Inspector, era: str) -> None:
    done = inspector.run("--method", "tools/call", "--tool-name", "divide", "--tool-arg", "a=1", "b=0", era=era)
    assert done.returncode == 5
    result = json.loads(done.stdout)["result"]
    assert result["isError"] is True and result["content"][0]["text"] == "cannot divide by zero"
    assert json.loads(done.stderr)["error"]["code"] == "tool_is_error"


@pytest.mark.parametrize("era", ERAS)
def test_an_unknown_tool_is_reported_as_not_found(inspector: Inspector, era: str) -> None:
    done = inspector.run("--method", "tools/call", "--tool-name", "no_such_tool", era=era)
    assert done.returncode == 5 and done.stdout == ""
    assert json.loads(done.stderr)["error"]["code"] == "tool_not_found"


LOOSE_SERVER = '''
from toolweave import Server
server = Server("loose")

@server.tool
def anything(value) -> str:
    """Takes an unannotated parameter, whose schema is `{}`."""
    return "ok"

server.run()
'''


def lint(node_tools: dict[str, str], tmp_path: Path, *server: str) -> subprocess.CompletedProcess[str]:
    """`mcp-inspector --cli --strict <server> --method tools/list` (exit 6 on error-severity problems)."""
    inspector = Inspector(node_tools, tmp_path, None)
    command = [inspector.binary, "--cli", "--strict", "--cwd", str(ROOT), "-e", f"PYTHONPATH={ROOT}"]
    return subprocess.run(
        [*command, sys.executable, *server, "--method", "tools/list"],
        capture_output=True,
        text=True,
        env=inspector.env,
        timeout=60,
        check=False,
    )


def problems(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("Error: tool", "Warning: tool"))]


@pytest.mark.parametrize(
    "server",
    [["examples/quickstart.py"], ["-m", "tests.interop.servers"]],
    ids=["quickstart", "interop"],
)
def test_strict_schema_lint_finds_no_problem_in_the_example_tools(
    node_tools: dict[str, str], tmp_path: Path, server: list[str]
) -> None:
    done = lint(node_tools, tmp_path, *server)
    assert done.returncode == 0 and problems(done.stderr) == [], done.stderr


def test_strict_schema_lint_does_flag_a_schema_that_accepts_anything(
    node_tools: dict[str, str], tmp_path: Path
) -> None:
    script = tmp_path / "loose.py"
    script.write_text(LOOSE_SERVER)
    done = lint(node_tools, tmp_path, str(script))
    assert problems(done.stderr) == ['Warning: tool "anything"']
