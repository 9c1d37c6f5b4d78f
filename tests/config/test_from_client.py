"""`--from CLIENT [PATH]`: the servers a client is configured with, found where the client keeps them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import ROOT
from toolweave.config.build import build_file
from toolweave.config.dialects import CLIENTS, Platform
from toolweave.config.from_client import build_client, client_config, layered
from toolweave.config.loading import validate
from toolweave.core.errors import ConfigError


def put(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """A home folder and a project folder, both empty."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return home, project


def servers_of(config: Any) -> dict[str, Any]:
    return {**config.mcp_servers, **config.servers}


@pytest.mark.parametrize("platform", ["linux", "macos"])
@pytest.mark.parametrize("name", list(CLIENTS))
def test_each_client_file_is_found_where_the_client_keeps_it(
    places: tuple[Path, Path], name: str, platform: Platform
) -> None:
    home, project = places
    user = CLIENTS[name].files(platform)[0]
    put(home / user.removeprefix("~/"), {CLIENTS[name].key: {"mine": {"command": "server"}}})
    config = client_config(name, home=home, cwd=project, platform=platform)
    assert servers_of(config)["mine"].command == "server"
    assert servers_of(config)["mine"].prefix == "mine"


def test_the_folders_given_are_the_workspace_and_home_of_the_users_file(places: tuple[Path, Path]) -> None:
    """`client_config(home=, cwd=)` looked there for files, but `${workspaceFolder}` and `${userHome}`
    in the user's file were the process's current and home folders."""
    home, project = places
    entry = {"command": "fs", "args": ["${workspaceFolder}/data", "${userHome}/notes"]}
    put(home / ".config/Code/User/mcp.json", {"servers": {"fs": entry}})
    config = client_config("vscode", home=home, cwd=project, platform="linux")
    assert config.servers["fs"].args == [f"{project.resolve()}/data", f"{home}/notes"]


@pytest.mark.parametrize("name", ["claude-code", "cursor", "vscode"])
def test_a_project_file_adds_servers_and_wins_by_name(places: tuple[Path, Path], name: str) -> None:
    home, project = places
    user, in_project = CLIENTS[name].files("linux")
    key = CLIENTS[name].key
    put(home / user.removeprefix("~/"), {key: {"shared": {"command": "user"}, "mine": {"command": "user"}}})
    put(project / str(in_project), {key: {"shared": {"command": "project"}}})
    if name == "claude-code":  # (which asks before it starts a project's servers)
        put(project / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["shared"]})
    servers = servers_of(client_config(name, home=home, cwd=project, platform="linux"))
    assert {name: entry.command for name, entry in servers.items()} == {"shared": "project", "mine": "user"}


def test_claude_code_starts_only_the_project_servers_the_user_approved_there(
    places: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """A cloned repository's `.mcp.json` may run anything: Claude Code asks first, and so do we."""
    home, project = places
    servers = {name: {"command": f"{name}-server"} for name in ("approved", "rejected", "unasked", "all")}
    put(project / ".mcp.json", {"mcpServers": servers})
    decided = {"enabledMcpjsonServers": ["approved", "rejected"], "disabledMcpjsonServers": ["rejected"]}
    put(home / ".claude.json", {"projects": {str(project.resolve()): decided}})
    kept = servers_of(client_config("claude-code", home=home, cwd=project, platform="linux"))
    assert sorted(kept) == ["approved"]
    assert "rejected in Claude Code: rejected" in caplog.text
    assert "not approved in Claude Code: all, unasked" in caplog.text
    put(project / ".claude" / "settings.json", {"enableAllProjectMcpServers": True})
    kept = servers_of(client_config("claude-code", home=home, cwd=project, platform="linux"))
    assert sorted(kept) == ["all", "approved", "unasked"]  # a rejection still stands


def test_claude_code_reads_the_current_projects_own_servers_last(places: tuple[Path, Path]) -> None:
    home, project = places
    claude = {
        "numStartups": 12,  # Claude Code's own settings are not toolweave's to check
        "mcpServers": {"web": {"type": "http", "url": "https://example.com/mcp"}},
        "projects": {
            str(project.resolve()): {"mcpServers": {"db": {"type": "stdio", "command": "local-db"}}, "trust": True},
            "/elsewhere": {"mcpServers": {"other": {"command": "no"}}},
        },
    }
    put(home / ".claude.json", claude)
    put(project / ".mcp.json", {"mcpServers": {"db": {"command": "project-db"}}})
    servers = servers_of(client_config("claude-code", home=home, cwd=project, platform="linux"))
    assert sorted(servers) == ["db", "web"]
    assert servers["db"].command == "local-db"  # local scope wins over the project's .mcp.json


def test_a_given_path_is_read_instead_and_relative_paths_keep_pointing_next_to_it(tmp_path: Path) -> None:
    path = put(tmp_path / "elsewhere" / "desktop.json", {"mcpServers": {"fs": {"command": "fs", "cwd": "data"}}})
    config = client_config("claude-desktop", path, home=tmp_path / "nohome")
    assert config.mcp_servers["fs"].cwd == str((tmp_path / "elsewhere" / "data").resolve())


def test_server_names_become_valid_prefixes(tmp_path: Path) -> None:
    path = put(tmp_path / "c.json", {"mcpServers": {"@acme/docs server": {"command": "x"}}})
    assert client_config("cursor", path).mcp_servers["@acme/docs server"].prefix == "_acme_docs_server"


def test_names_that_make_the_same_prefix_are_told_apart_by_a_number(tmp_path: Path) -> None:
    servers = {"notes server": {"command": "x"}, "notes/server": {"command": "x"}, "notes_server_2": {"command": "x"}}
    path = put(tmp_path / "c.json", {"mcpServers": servers})
    prefixes = {name: entry.prefix for name, entry in client_config("cursor", path).mcp_servers.items()}
    assert prefixes == {
        "notes server": "notes_server",
        "notes/server": "notes_server_3",
        "notes_server_2": "notes_server_2",
    }


def test_servers_whose_names_make_one_prefix_are_both_served(tmp_path: Path, python: str) -> None:
    server = str(ROOT / "examples" / "notes_server.py")
    servers = {name: {"command": python, "args": [server]} for name in ("notes server", "notes/server")}
    composed = build_client("vscode", put(tmp_path / "mcp.json", {"servers": servers}))
    names = anyio.run(_tool_names, composed.server)
    assert {"notes_server_write", "notes_server_2_write"} <= names


async def _tool_names(server: Any) -> set[str]:
    async with server:
        return {tool.name for tool in await server.list_tools()}


def test_no_file_names_every_place_it_looked_and_how_to_give_one(places: tuple[Path, Path]) -> None:
    home, project = places
    with pytest.raises(ConfigError) as caught:
        client_config("vscode", home=home, cwd=project, platform="macos")
    message = str(caught.value)
    assert str(home / "Library/Application Support/Code/User/mcp.json") in message
    assert str(project.resolve() / ".vscode/mcp.json") in message
    assert "--from vscode PATH" in message


def test_a_given_file_without_a_server_list_is_refused(tmp_path: Path) -> None:
    path = put(tmp_path / "settings.json", {"editor.tabSize": 2})
    with pytest.raises(ConfigError, match="no 'mcpServers' or 'servers' in this file"):
        client_config("vscode", path)


def test_vscodes_settings_json_is_read_for_its_mcp_block(tmp_path: Path) -> None:
    """VS Code kept its servers in `settings.json` under `mcp` before `mcp.json`: `--from vscode
    settings.json` said the file lists no MCP servers."""
    settings = """{
      "editor.fontSize": 14,  // VS Code's own settings, not toolweave's to check
      "mcp": {
        "inputs": [{"type": "promptString", "id": "token", "password": true}],
        "servers": {"gh": {"command": "gh-mcp", "env": {"TOKEN": "${input:token}"}, "cwd": "data"}},
      },
    }"""
    path = put(tmp_path / "User" / "settings.json", settings)
    config = client_config("vscode", path, inputs={"token": "t-5"})
    assert config.servers["gh"].env == {"TOKEN": "t-5"}
    assert config.servers["gh"].cwd == str((tmp_path / "User" / "data").resolve())
    put(path, {"mcp": {"servers": {"gh": {"comand": "gh-mcp"}}}})
    with pytest.raises(ConfigError, match=r"settings\.json \(mcp\): servers\.gh\.comand: unknown key"):
        client_config("vscode", path)
    with pytest.raises(ConfigError, match=r"VS Code's settings\.json\? `--from vscode FILE` reads the servers"):
        build_file(path)  # (read as a toolweave file, it said only that 'mcp' is an unknown key)


def test_a_file_that_does_not_parse_is_reported_with_the_others_problems(places: tuple[Path, Path]) -> None:
    home, project = places
    put(home / ".cursor/mcp.json", '{"mcpServers": {"a": }}')
    put(project / ".cursor/mcp.json", {"mcpServers": {"b": {"command": "x", "bogus": 1}}})
    with pytest.raises(ConfigError) as caught:
        client_config("cursor", home=home, cwd=project, platform="linux")
    message = str(caught.value)
    assert f"{home / '.cursor/mcp.json'}: invalid JSON at line 1" in message
    assert "mcpServers.b.bogus: unknown key" in message


def test_the_commands_clients_are_the_known_clients() -> None:
    from toolweave.cli_compose import Client

    assert [client.value for client in Client] == list(CLIENTS)


def test_problems_of_every_file_are_reported_together(places: tuple[Path, Path]) -> None:
    home, project = places
    put(home / ".cursor/mcp.json", {"mcpServers": {"a": {"comand": "x"}}})
    put(project / ".cursor/mcp.json", {"mcpServers": {"b": {"command": "x", "env": {"T": "${NOT_SET_HERE_9}"}}}})
    with pytest.raises(ConfigError) as caught:
        client_config("cursor", home=home, cwd=project, platform="linux", environ={})
    message = str(caught.value)
    assert "2 problems" in message
    assert f"{home / '.cursor/mcp.json'}: mcpServers.a.comand: unknown key" in message
    assert "mcpServers.b.env.T: environment variable NOT_SET_HERE_9 is not set" in message


def test_inputs_in_a_client_file_are_resolved_and_kept_secret(tmp_path: Path) -> None:
    data = {
        "inputs": [{"type": "promptString", "id": "token", "password": True}],
        "servers": {
            "gh": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${input:token}"}}
        },
    }
    path = put(tmp_path / "mcp.json", data)
    config = client_config("vscode", path, inputs={"token": "tok-9876543210"})
    assert config.servers["gh"].headers == {"Authorization": "Bearer tok-9876543210"}
    assert config.secrets == {"tok-9876543210": "${input:token}"}


@pytest.mark.parametrize("given", [{"region": "eu-wset"}, {}])
def test_a_pick_string_input_takes_only_one_of_its_options(tmp_path: Path, given: dict[str, str]) -> None:
    """VS Code offers only a `pickString`'s options; a misspelt `--input region=eu-wset` reached the server."""
    pick = {"type": "pickString", "id": "region", "description": "Region", "options": ["eu-west", "us-east"]}
    data = {"inputs": [{**pick, "default": "eu-wset"}], "servers": {"s": {"command": "s", "args": ["${input:region}"]}}}
    path = put(tmp_path / "mcp.json", data)
    with pytest.raises(ConfigError) as caught:
        client_config("vscode", path, inputs=given, environ={})
    expected = "servers.s.args[0]: input 'region' (Region) takes one of its options ('eu-west', 'us-east')"
    assert expected in str(caught.value)
    assert "eu-wset" not in str(caught.value)  # (a value given may be a secret)
    labelled = {**pick, "options": ["eu-west", {"label": "United States", "value": "us-east"}]}
    put(path, {**data, "inputs": [labelled]})
    assert client_config("vscode", path, inputs={"region": "us-east"}).servers["s"].args == ["us-east"]


def test_a_misspelt_input_id_is_refused_not_ignored(tmp_path: Path) -> None:
    """`--input tokne=...` was ignored, and the server silently got the input's default instead."""
    data = {
        "inputs": [{"type": "promptString", "id": "token", "password": True, "default": "public-demo-key"}],
        "servers": {
            "gh": {"command": "gh-mcp", "env": {"TOKEN": "${input:token}"}},
            "off": {"command": "old", "disabled": True, "env": {"KEY": "${input:old_key}"}},
        },
    }
    path = put(tmp_path / "mcp.json", data)
    with pytest.raises(ConfigError) as caught:
        build_client("vscode", path, inputs={"tokne": "tok-55"})
    assert "input 'tokne' is given (--input), but no file declares it" in str(caught.value)
    assert "did you mean 'token'?" in str(caught.value)
    assert "tok-55" not in str(caught.value)
    policies = put(tmp_path / "policies.yaml", "server: {name: '${input:gateway_name}'}\n")
    given = {"token": "t", "old_key": "k", "gateway_name": "gw"}  # declared, a disabled server's, the --with file's
    assert build_client("vscode", path, with_file=policies, inputs=given).server.name == "gw"
    with pytest.raises(ConfigError, match=r"input 'zz' is given .*the inputs are 'old_key', 'token'"):
        build_file(path, inputs={"zz": "1"})


def test_two_dollars_in_a_client_file_are_two_dollars(tmp_path: Path) -> None:
    """No client reads `$$` as one `$` (toolweave's own escape): a `pa$$word` reached the server as `pa$word`."""
    entry = {"command": "db", "args": ["--pattern", "^a$$"], "env": {"DB_PASSWORD": "pa$$word", "HOME_DIR": "${HOME}"}}
    path = put(tmp_path / "claude_desktop_config.json", {"mcpServers": {"db": entry}})
    db = client_config("claude-desktop", path, environ={"HOME": "/home/me"}).mcp_servers["db"]
    assert (db.args, db.env) == (["--pattern", "^a$$"], {"DB_PASSWORD": "pa$$word", "HOME_DIR": "/home/me"})
    own = validate({"mcpServers": {"db": entry}}, environ={"HOME": "/home/me"}).mcp_servers["db"]
    assert own.env == {"DB_PASSWORD": "pa$word", "HOME_DIR": "/home/me"}  # toolweave's file: `$$` is its escape


def test_cursors_oauth_login_block_is_accepted_and_told_of_not_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Cursor's static OAuth client (`auth: {CLIENT_ID, CLIENT_SECRET, scopes}`) signs a person in
    through a browser: it failed the whole file as unknown keys of toolweave's own `auth`."""
    login = {"CLIENT_ID": "cursor-app", "CLIENT_SECRET": "login-secret-4821", "scopes": ["mcp"]}
    servers = {"docs": {"url": "https://docs.example.test/mcp", "auth": login}, "fs": {"command": "fs"}}
    path = put(tmp_path / "mcp.json", {"mcpServers": servers})
    with caplog.at_level("WARNING", logger="toolweave.config"):
        composed = build_client("cursor", path)
    assert sorted(remote.name for remote in composed.remotes) == ["docs", "fs"]
    assert "mcpServers.docs.auth: Cursor's OAuth login (CLIENT_ID, CLIENT_SECRET, scopes) is not used" in caplog.text
    assert "login-secret-4821" not in caplog.text
    with pytest.raises(ConfigError, match="give exactly one of bearer or client_credentials"):
        validate({"mcpServers": {"docs": {"url": "https://h/mcp", "auth": {}}}})


def test_a_policies_file_layers_over_the_clients_servers(tmp_path: Path) -> None:
    client = put(tmp_path / "desktop.json", {"mcpServers": {"fs": {"command": "fs"}}})
    policies = put(tmp_path / "policies.yaml", "server: {name: mine}\nmiddleware: {logging: true}\n")
    composed = build_client("claude-desktop", client, with_file=policies)
    assert composed.server.name == "mine"
    assert [type(m).__name__ for m in composed.server.middleware] == ["Logging"]
    assert [remote.name for remote in composed.remotes] == ["fs"]
    assert composed.file == f"--from claude-desktop --with {policies}"


def test_a_server_name_in_both_files_is_refused() -> None:
    base = validate({"mcpServers": {"fs": {"command": "a"}}})
    over = validate({"servers": {"fs": {"command": "b"}}})
    with pytest.raises(ConfigError, match="'fs' also defined by the client's config"):
        layered(base, over, file="policies.yaml")


def test_an_unknown_client_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown client 'zed'"):
        client_config("zed")
