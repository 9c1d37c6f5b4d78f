"""Bring your existing servers: each client's own file, in its own dialect, listed and served.

The files are placed where each client keeps them, under a temporary home and project folder; the
servers in them are real: the `mcp` SDK's `MCPServer` over stdio, streamable HTTP and legacy SSE.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client

from tests.acceptance.cli_helpers import COMMAND, ROOT
from tests.conftest import subprocess_env
from tests.serving import PORT, spawned, toolweave_served
from toolweave.config.from_client import build_client
from toolweave.testing import connect

SDK_UPSTREAM = str(ROOT / "tests" / "server" / "upstreams" / "sdk_upstream.py")
PYTHON = sys.executable


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    """A streamable HTTP and a legacy SSE upstream for the whole module."""
    with spawned(PYTHON, SDK_UPSTREAM, "http", PORT) as http, spawned(PYTHON, SDK_UPSTREAM, "sse", PORT) as sse:
        yield {"http": f"{http.url}/mcp", "sse": f"{sse.url}/sse"}


def put(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")


def local(**env: str) -> dict[str, Any]:
    return {"command": PYTHON, "args": [SDK_UPSTREAM], "env": env}


VSCODE_PROJECT = """\
{
  // inputs are never prompted for: --input, or an environment variable of the same id
  "inputs": [{"type": "promptString", "id": "greeting", "description": "What to say", "password": true}],
  "servers": {
    "local": {
      "type": "stdio",
      "command": "%(python)s",
      "args": ["%(script)s"],
      "env": {"GREETING": "${input:greeting}"},
    },
  },
}
"""


def place(client: str, home: Path, project: Path, urls: dict[str, str]) -> dict[str, Any]:
    """Write `client`'s files as it writes them; return the calls to make and what they answer."""
    if client == "claude-desktop":
        put(home / ".config/Claude/claude_desktop_config.json", {"mcpServers": {"local": local(GREETING="hi")}})
        return {"local_getenv": ({"name": "GREETING"}, "hi")}
    if client == "claude-code":
        legacy = {"legacy": {"type": "sse", "url": urls["sse"]}}
        local_scope = {"mcpServers": legacy, "enabledMcpjsonServers": ["local"]}  # (approved in Claude Code)
        user = {"mcpServers": {"web": {"type": "http", "url": urls["http"]}}, "projects": {str(project): local_scope}}
        put(home / ".claude.json", user)
        put(project / ".mcp.json", {"mcpServers": {"local": local(GREETING="${GREETING_X:-hello}")}})
        return {"web_add": ({"a": 1, "b": 2}, "3"), "legacy_add": ({"a": 2, "b": 2}, "4"),
                "local_getenv": ({"name": "GREETING"}, "hello")}
    if client == "cursor":
        headers = {"x-team": "${env:CURSOR_TEAM}"}  # (a credential's echo would come back [redacted])
        put(home / ".cursor/mcp.json", {"mcpServers": {"web": {"url": urls["http"], "headers": headers}}})
        put(project / ".env", "GREETING=from the env file\n")
        entry = {"command": PYTHON, "args": [SDK_UPSTREAM], "envFile": "${workspaceFolder}/.env"}
        put(project / ".cursor/mcp.json", {"mcpServers": {"local": entry}})
        return {"web_header": ({"name": "x-team"}, "cursor-team"),
                "local_getenv": ({"name": "GREETING"}, "from the env file")}
    if client == "windsurf":
        web = {"serverUrl": urls["http"], "disabledTools": ["pid"]}
        servers = {"web": web, "off": {"command": "none", "disabled": True}}
        put(home / ".codeium/windsurf/mcp_config.json", {"mcpServers": servers})
        return {"web_add": ({"a": 5, "b": 5}, "10"), "web_pid": None}
    if client == "cline":
        web = {"type": "streamableHttp", "url": urls["http"], "alwaysAllow": ["add"], "autoApprove": [], "timeout": 30}
        servers = {"web": web, "legacy": {"type": "sse", "url": urls["sse"], "disabled": False}}
        put(home / ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            {"mcpServers": servers})
        return {"web_add": ({"a": 1, "b": 1}, "2"), "legacy_add": ({"a": 3, "b": 3}, "6")}
    assert client == "vscode"
    user = '{"servers": {"web": {"type": "http", "url": "URL"}}}  // written by hand'
    put(home / ".config/Code/User/mcp.json", user.replace("URL", urls["http"]))
    put(project / ".vscode/mcp.json", VSCODE_PROJECT % {"python": PYTHON, "script": SDK_UPSTREAM})
    return {"web_add": ({"a": 4, "b": 4}, "8"), "local_getenv": ({"name": "GREETING"}, "hello from an input")}


CLIENTS = ["claude-desktop", "claude-code", "cursor", "windsurf", "cline", "vscode"]
ENVIRON = {"CURSOR_TEAM": "cursor-team", "greeting": "hello from an input"}


@pytest.mark.parametrize("client", CLIENTS)
async def test_each_clients_own_files_are_listed_and_served(
    client: str, tmp_path: Path, urls: dict[str, str]
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    calls = place(client, home, project, urls)
    composed = build_client(client, home=home, cwd=project, platform="linux", environ=ENVIRON)
    async with composed.running(), connect(composed.server) as session:
        listed = [tool.name for tool in (await session.list_tools()).tools]
        answers = {}
        for tool, call in calls.items():
            if call is not None:
                result = await session.call_tool(tool, call[0])
                answers[tool] = result.content[0].text
        states = [remote.state for remote in composed.remotes]
    assert answers == {tool: call[1] for tool, call in calls.items() if call is not None}
    assert {tool for tool, call in calls.items() if call is None}.isdisjoint(listed)  # switched off in the client
    assert states and set(states) == {"up"}


# -- the command, with a temporary HOME -----------------------------------------------------------


def cli(*args: str, home: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], cwd=cwd, env=subprocess_env(HOME=str(home), **env),
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_list_from_claude_desktop_reads_the_file_in_home(tmp_path: Path, urls: dict[str, str]) -> None:
    home = tmp_path / "home"
    place("claude-desktop", home, tmp_path, urls)
    done = cli("list", "--from", "claude-desktop", "--json", home=home, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {tool["name"] for tool in data["tools"]} == {"local_getenv", "local_header", "local_add", "local_pid"}
    assert [upstream["state"] for upstream in data["upstreams"]] == ["up"]


def test_from_with_a_path_reads_that_file(tmp_path: Path, urls: dict[str, str]) -> None:
    file = tmp_path / "anywhere.json"
    put(file, {"mcpServers": {"remote": {"type": "streamable-http", "url": urls["http"]}}})
    done = cli("list", "--from", "cursor", str(file), "--json", home=tmp_path / "empty", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "remote_add" in {tool["name"] for tool in json.loads(done.stdout)["tools"]}


def test_from_finds_nothing_and_says_where_it_looked(tmp_path: Path) -> None:
    done = cli("list", "--from", "windsurf", home=tmp_path, cwd=tmp_path)
    assert done.returncode == 1
    assert f"no Windsurf config found (looked for {tmp_path}/.codeium/windsurf/mcp_config.json)" in done.stderr


def test_a_vscode_input_left_unresolved_is_refused_naming_it(tmp_path: Path, urls: dict[str, str]) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    place("vscode", home, project, urls)
    done = cli("list", "--from", "vscode", home=home, cwd=project)
    assert done.returncode == 1
    assert "servers.local.env.GREETING: input 'greeting' (What to say) has no value" in done.stderr
    assert "--input greeting=VALUE" in done.stderr and "Traceback" not in done.stderr


async def test_serve_from_vscode_with_an_input_flag_and_a_policies_file(tmp_path: Path, urls: dict[str, str]) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    place("vscode", home, project, urls)
    put(project / "policies.yaml", "transforms:\n  - tools: 'web_*'\n    enabled: false\nmiddleware: {timeout: 20}\n")
    params = StdioServerParameters(
        command=COMMAND[0],
        args=[*COMMAND[1:], "serve", "--from", "vscode", "--with", "policies.yaml", "--input", "greeting=from a flag"],
        env=subprocess_env(HOME=str(home)),
        cwd=str(project),
    )
    async with mcp.Client(params) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("local_getenv", {"name": "GREETING"})
    assert listed == ["local_getenv", "local_header", "local_add", "local_pid"]  # web_* switched off
    assert result.content[0].text == "from a flag"


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["serve", "--legacy-sse"], "--legacy-sse is an HTTP transport: add --transport http"),
        (["list", "--with", "policies.yaml"], "give --from CLIENT too"),
        (["list"], "give a config file, or --from CLIENT"),
        (["list", "--from", "cursor", "--input", "novalue"], "--input takes ID=VALUE"),
        (["explain", "--from", "cursor", "github_search"], "with --from, name the tool with --tool github_search"),
    ],
)
def test_usage_mistakes_exit_2_saying_what_to_do(tmp_path: Path, args: list[str], problem: str) -> None:
    done = cli(*args, home=tmp_path, cwd=tmp_path)
    assert done.returncode == 2 and problem in done.stderr


@pytest.mark.parametrize(
    ("inputs", "problem"),
    [
        (["ghp_s3cr3t0123"], "error: --input takes ID=VALUE (one has no '=', or nothing before it)"),
        (["token=ghp_s3cr3t0123", "token=ghp_s3cr3t0456"], "error: --input 'token' is given twice"),
    ],
    ids=["value without its id", "id given twice"],
)
def test_an_input_without_its_id_or_given_twice_exits_2_showing_no_value(
    tmp_path: Path, inputs: list[str], problem: str
) -> None:
    """An input's value is a secret: `--input ghp_...` (the id forgotten) was echoed back, and of
    an id given twice the last value silently won."""
    done = cli("list", "--from", "cursor", *(f"--input={given}" for given in inputs), home=tmp_path, cwd=tmp_path)
    assert (done.returncode, done.stderr.strip()) == (2, problem)


# -- serving the legacy SSE transport --------------------------------------------------------------


async def test_serve_legacy_sse_answers_the_sdk_sse_client_and_stops_with_a_client_connected(
    tmp_path: Path, urls: dict[str, str]
) -> None:
    config = tmp_path / "gateway.json"
    put(config, {"server": {"name": "bridge"}, "mcpServers": {"modern": {"url": urls["http"], "prefix": "m"}}})
    with toolweave_served(config, "--legacy-sse", cwd=tmp_path, stderr=subprocess.PIPE, text=True) as server:
        port, process = server.port, server.process
        try:
            async with sse_client(f"{server.url}/sse") as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                result = await session.call_tool("m_add", {"a": 19, "b": 23})
                process.send_signal(signal.SIGINT)  # a connected legacy client must not hold the shutdown
                code = await anyio.to_thread.run_sync(lambda: process.wait(15))
        finally:
            if process.poll() is None:
                process.kill()
            assert process.stderr is not None
            err = process.stderr.read()
    assert init.server_info.name == "bridge"
    assert result.structured_content == {"result": 42}
    assert code == 0
    assert f"Legacy SSE clients: http://127.0.0.1:{port}/sse" in err
