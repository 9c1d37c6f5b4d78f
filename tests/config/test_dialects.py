"""The server lists of MCP clients, as each client writes them, load unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from toolweave.config import build_file, config_schema, load_config
from toolweave.config.dialects import TRANSPORTS, dialect_table
from toolweave.config.envfile import parse_env_file
from toolweave.core.errors import ConfigError

VSCODE = """\
// .vscode/mcp.json, as VS Code writes it: comments and trailing commas
{
  "inputs": [
    {"type": "promptString", "id": "github_token", "description": "GitHub Personal Access Token", "password": true},
    {"type": "pickString", "id": "region", "description": "Region", "options": ["eu", "us"], "default": "eu"},
  ],
  "servers": {
    "github": {
      "type": "stdio",
      "command": "github-mcp-server",
      "args": ["stdio", "--region", "${input:region}"],
      "env": {"GITHUB_TOKEN": "${input:github_token}"},  /* the secret */
      "dev": {"watch": "src/**/*.ts"},
    },
    "docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"X-Key": "${env:DOCS_KEY}"}},
    "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
  },
}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path: Path, **options: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, **options)
    return str(caught.value)


@pytest.mark.parametrize(
    ("entry", "transport"),
    [
        ({"command": "x"}, "stdio"),
        ({"type": "stdio", "command": "x"}, "stdio"),
        ({"url": "https://h/mcp"}, "http"),
        ({"type": "http", "url": "https://h/mcp"}, "http"),
        ({"type": "streamable-http", "url": "https://h/mcp"}, "http"),
        ({"type": "streamableHttp", "url": "https://h/mcp"}, "http"),
        ({"transport": "streamable-http", "url": "https://h/mcp"}, "http"),
        ({"serverUrl": "https://h/mcp"}, "http"),
        ({"type": "sse", "url": "https://h/sse"}, "sse"),
        ({"transport": "sse", "serverUrl": "https://h/sse"}, "sse"),
        ({"transportType": "stdio", "command": "x", "timeout": 60, "disabled": False}, "stdio"),  # Cline's
        ({"transportType": "sse", "url": "https://h/sse"}, "sse"),
    ],
)
def test_every_spelling_of_the_transport_is_accepted(tmp_path: Path, entry: dict[str, Any], transport: str) -> None:
    config = load_config(write(tmp_path, "c.json", json.dumps({"mcpServers": {"s": entry}})))
    assert config.mcp_servers["s"].transport == transport


def test_a_vscode_file_loads_with_its_inputs_from_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path / ".vscode", "mcp.json", VSCODE)
    config = load_config(path, environ={"github_token": "ghp-from-env-123", "DOCS_KEY": "docs-key-456"})
    github = config.servers["github"]
    assert github.env == {"GITHUB_TOKEN": "ghp-from-env-123"}
    assert github.args == ["stdio", "--region", "eu"]  # the pickString's default
    assert config.servers["docs"].headers == {"X-Key": "docs-key-456"}
    assert config.servers["legacy"].transport == "sse"
    assert [item.id for item in config.inputs] == ["github_token", "region"]


def test_an_input_given_as_a_flag_wins_over_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, "mcp.json", VSCODE)
    environ = {"github_token": "from-env", "DOCS_KEY": "k"}
    config = load_config(path, environ=environ, inputs={"github_token": "from-flag", "region": "us"})
    assert config.servers["github"].env == {"GITHUB_TOKEN": "from-flag"}
    assert config.servers["github"].args[-1] == "us"


def test_input_and_env_values_are_secrets_shown_as_their_reference(tmp_path: Path) -> None:
    path = write(tmp_path, "mcp.json", VSCODE)
    config = load_config(path, environ={"github_token": "ghp-secret-value", "DOCS_KEY": "docs-secret-value"})
    assert config.secrets["ghp-secret-value"] == "${input:github_token}"
    assert config.secrets["docs-secret-value"] == "${env:DOCS_KEY}"


def test_an_input_without_a_value_is_refused_naming_it_with_every_other_problem(tmp_path: Path) -> None:
    text = VSCODE.replace('"dev"', '"devv"')
    message = problems_of(write(tmp_path, "mcp.json", text), environ={})
    assert str(tmp_path / "mcp.json") in message and "3 problems" in message
    assert (
        "servers.github.env.GITHUB_TOKEN: input 'github_token' (GitHub Personal Access Token) has no value: "
        "give it with --input github_token=VALUE or the environment variable github_token"
    ) in message
    assert "servers.docs.headers.X-Key: environment variable DOCS_KEY is not set" in message
    assert "servers.github.devv: unknown key (did you mean 'dev'?)" in message


def test_a_disabled_server_needs_none_of_its_values(tmp_path: Path) -> None:
    """It is skipped: its `${input:id}` and `${VAR}` must not make the whole file fail."""
    servers = {
        "on": {"command": "server", "args": ["${input:region}"]},
        "gh": {"url": "http://x/mcp", "headers": {"Authorization": "Bearer ${input:ghtok}"}, "disabled": True},
        "old": {"command": "x", "env": {"K": "${PROBE_NOT_SET}"}, "disabled": True},
    }
    inputs = [{"id": "ghtok", "type": "promptString"}, {"id": "region", "type": "promptString"}]
    path = write(tmp_path, "mcp.json", json.dumps({"inputs": inputs, "servers": servers}))
    config = load_config(path, environ={}, inputs={"region": "eu"})
    assert config.servers["on"].args == ["eu"] and config.servers["gh"].disabled
    assert [remote.name for remote in build_file(path, inputs={"region": "eu"}).remotes] == ["on"]
    mistyped = {"servers": {"gh": {**servers["gh"], "urll": 1}}}  # still checked as written
    assert "servers.gh.urll: unknown key" in problems_of(write(tmp_path, "bad.json", json.dumps(mistyped)))


def test_an_undeclared_input_says_so(tmp_path: Path) -> None:
    path = write(tmp_path, "c.json", '{"servers": {"s": {"command": "x", "args": ["${input:nowhere}"]}}}')
    assert "input 'nowhere' (not declared in 'inputs') has no value" in problems_of(path, environ={})


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        ("${env:}", "does not name an environment variable"),
        ("${input:}", "'${input:}' names no input: write ${input:id}"),
        ("${config:editor.tabSize}", "'${config:editor.tabSize}' is not a valid reference"),
        ("${command:pick}", "write ${NAME}, ${NAME:-default}, ${env:NAME} or ${input:id}"),
    ],
)
def test_references_that_cannot_be_expanded_are_refused(tmp_path: Path, reference: str, problem: str) -> None:
    path = write(tmp_path, "c.json", json.dumps({"servers": {"s": {"command": "x", "args": [reference]}}}))
    assert problem in problems_of(path, environ={})


def test_workspace_folder_is_the_folder_holding_dot_vscode(tmp_path: Path) -> None:
    text = '{"servers": {"fs": {"command": "fs", "args": ["${workspaceFolder}", "${userHome}"]}}}'
    config = load_config(write(tmp_path / "project" / ".vscode", "mcp.json", text))
    assert config.servers["fs"].args == [str((tmp_path / "project").resolve()), str(Path.home())]


def test_unknown_keys_in_a_servers_entry_fail_with_file_key_path_and_hint(tmp_path: Path) -> None:
    path = write(tmp_path, "mcp.json", '{"servers": {"gh": {"type": "stdio", "comand": "x"}}}')
    message = problems_of(path)
    assert message.startswith(f"{path}: ")
    assert "servers.gh.comand: unknown key (did you mean 'command'?)" in message


def test_a_clients_own_settings_file_read_as_a_config_points_at_from(tmp_path: Path) -> None:
    text = '{"globalShortcut": "Ctrl+Space", "mcpServers": {"gh": {"command": "gh-mcp"}}}'
    message = problems_of(write(tmp_path, "claude_desktop_config.json", text))
    assert "globalShortcut: unknown key" in message
    assert message.endswith(
        "an MCP client's settings file? "
        "`--from claude-desktop|claude-code|cursor|windsurf|cline|vscode FILE` reads only its servers"
    )
    assert "settings file" not in problems_of(write(tmp_path, "plain.yaml", "pyhton: []"))


def test_a_name_under_both_lists_is_refused(tmp_path: Path) -> None:
    data = {"mcpServers": {"gh": {"command": "a"}}, "servers": {"gh": {"command": "b"}}}
    path = write(tmp_path, "c.json", json.dumps(data))
    assert "'gh' defined under both 'mcpServers' and 'servers'" in problems_of(path)


def test_a_json_mistake_outside_comments_still_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "mcp.json", '// header\n{"servers": {\n  "a": {"command": "x"} "b": {}\n}}\n')
    assert "invalid JSON at line 3, column 25" in problems_of(path)


@pytest.mark.parametrize(
    "entry",
    [
        {"command": "x", "alwaysAllow": ["read"], "autoApprove": [], "disabled": False, "timeout": 60},  # Cline
        {"serverUrl": "https://h/mcp", "disabledTools": ["delete_all"]},  # Windsurf
        {"type": "stdio", "command": "x", "gallery": True, "version": "1.2.0", "dev": {"debug": {"type": "node"}}},
    ],
)
def test_client_only_keys_are_accepted(tmp_path: Path, entry: dict[str, Any]) -> None:
    load_config(write(tmp_path, "c.json", json.dumps({"mcpServers": {"s": entry}})))


def test_an_env_file_reaches_the_stdio_remote_and_server_url_the_http_one(tmp_path: Path) -> None:
    write(tmp_path, "secrets.env", "# for the server\nexport TOKEN='t 1'\nREGION=eu # default\n")
    data = {
        "mcpServers": {
            "local": {"command": "server", "envFile": "secrets.env", "env": {"REGION": "us"}},
            "web": {"serverUrl": "https://h/mcp", "disabledTools": ["drop_*"]},
        }
    }
    composed = build_file(write(tmp_path, "c.json", json.dumps(data)))
    local, web = composed.remotes
    assert local.target.env == {"TOKEN": "t 1", "REGION": "us"}  # `env` wins over the file
    assert web.target.url == "https://h/mcp"


def test_an_input_in_a_url_is_shown_as_its_reference(tmp_path: Path) -> None:
    data = {"servers": {"api": {"type": "sse", "url": "https://h/sse?tenant=${input:tenant}"}}}
    [remote] = build_file(write(tmp_path, "mcp.json", json.dumps(data)), inputs={"tenant": "acme-corp-7"}).remotes
    assert remote.target.url.endswith("tenant=acme-corp-7")
    assert remote.target.describe() == "https://h/sse?tenant=${input:tenant}"


def test_a_missing_env_file_is_an_error_at_its_key(tmp_path: Path) -> None:
    path = write(tmp_path, "c.json", '{"servers": {"s": {"command": "x", "envFile": "nope.env"}}}')
    with pytest.raises(ConfigError, match=r"servers\.s\.envFile: cannot read the env file"):
        build_file(path)


def test_an_sse_entry_becomes_an_sse_remote(tmp_path: Path) -> None:
    from toolweave.server.remote import SseTarget

    data = {"mcpServers": {"old": {"type": "sse", "url": "https://old.example.com/sse", "headers": {"A": "b"}}}}
    [remote] = build_file(write(tmp_path, "c.json", json.dumps(data))).remotes
    assert isinstance(remote.target, SseTarget) and remote.target.headers == {"A": "b"}


def test_an_env_file_saved_with_a_byte_order_mark_and_crlf_is_read(tmp_path: Path) -> None:
    (tmp_path / "secrets.env").write_bytes(b'\xef\xbb\xbfTOKEN=t1\r\nREGION="eu"\r\n')
    data = {"mcpServers": {"local": {"command": "server", "envFile": "secrets.env"}}}
    [local] = build_file(write(tmp_path, "c.json", json.dumps(data))).remotes
    assert local.target.env == {"TOKEN": "t1", "REGION": "eu"}


def test_a_quoted_env_file_value_followed_by_a_comment_loses_its_quotes() -> None:
    """`TOKEN="t 1" # note` gave the value `"t 1"`, quotes and all (dotenv, as VS Code reads it: `t 1`)."""
    text = 'TOKEN="t \\"1\\"" # note\nREGION=\'eu\'\t# default\nPLAIN=a#b # c\n'
    assert parse_env_file(text) == {"TOKEN": 't "1"', "REGION": "eu", "PLAIN": "a#b"}


def test_env_file_lines_that_are_not_assignments_are_refused() -> None:
    with pytest.raises(ValueError, match="line 2 is not KEY=VALUE"):
        parse_env_file("A=1\nnot an assignment\n")


def test_every_transport_spelling_is_in_the_schema_and_the_table() -> None:
    entry = config_schema()["$defs"]["McpServerEntry"]["properties"]["type"]
    assert set(TRANSPORTS) <= set(entry["anyOf"][0]["enum"])
    assert all(f"`{name}`" in dialect_table() for name in TRANSPORTS)


def test_the_dialect_table_is_in_the_readme_and_the_schema() -> None:
    assert dialect_table() in (ROOT / "README.md").read_text()
    assert dialect_table() in config_schema()["description"]
