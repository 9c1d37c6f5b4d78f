"""Reading config files: formats, `${VAR}` expansion, and errors that name file, key path and problem."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from toolweave import ConfigError
from toolweave.config import build, load_config
from toolweave.config.envvars import expand, expand_all
from toolweave.config.loading import parse_text
from toolweave.core.shown import shown_command

SAMPLE = {
    "server": {"name": "demo"},
    "mcpServers": {"github": {"command": "npx", "args": ["-y", "server-github"], "prefix": "gh"}},
}
YAML = """
server: {name: demo}
mcpServers:
  github:
    command: npx
    args: [-y, server-github]
    prefix: gh
"""
TOML = """
[server]
name = "demo"

[mcpServers.github]
command = "npx"
args = ["-y", "server-github"]
prefix = "gh"
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [("c.json", json.dumps(SAMPLE)), ("c.yaml", YAML), ("c.yml", YAML), ("c.toml", TOML)],
)
def test_json_yaml_and_toml_load_the_same_config(tmp_path: Path, name: str, text: str) -> None:
    config = load_config(write(tmp_path, name, text))
    assert config.server.name == "demo"
    assert config.mcp_servers["github"].args == ["-y", "server-github"]
    assert config.mcp_servers["github"].prefix == "gh"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("c.json", json.dumps(SAMPLE)),
        ("c.yaml", YAML),
        ("c.toml", TOML),
        ("c.json", json.dumps(SAMPLE, indent=2).replace("\n", "\r\n")),
    ],
)
def test_a_file_saved_with_a_byte_order_mark_loads(tmp_path: Path, name: str, text: str) -> None:
    """Windows editors (Notepad, PowerShell's `Out-File`) start UTF-8 files with a BOM."""
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    config = load_config(path)
    assert config.server.name == "demo" and config.mcp_servers["github"].prefix == "gh"


def test_a_jsonc_file_is_read_as_json_with_comments(tmp_path: Path) -> None:
    """A `.jsonc` file was read as YAML, and its first comment was an 'invalid YAML' error."""
    text = '{\n  // the gateway\n  "server": {"name": "demo"},\n  "mcpServers": {"github": {"command": "npx",},},\n}\n'
    config = load_config(write(tmp_path, "gateway.jsonc", text))
    assert config.server.name == "demo" and config.mcp_servers["github"].command == "npx"


def test_a_comment_left_open_is_named_where_it_starts(tmp_path: Path) -> None:
    """An unclosed `/*` blanked the rest of the file: the error was a missing property name at its end."""
    path = write(tmp_path, "mcp.json", '{"servers": {\n  /* off for now\n  "a": {"command": "x"}}}\n')
    with pytest.raises(ConfigError, match=r"invalid JSON at line 2, column 3: a '/\*' comment is not closed"):
        load_config(path)


def test_a_claude_desktop_config_loads_unchanged(tmp_path: Path) -> None:
    desktop = {
        "mcpServers": {
            "filesystem": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
            },
            "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"X-Key": "k"}},
        }
    }
    config = load_config(write(tmp_path, "claude_desktop_config.json", json.dumps(desktop)))
    assert config.mcp_servers["filesystem"].transport == "stdio"
    assert config.mcp_servers["remote"].transport == "http"


def test_env_variables_expand_with_defaults() -> None:
    data = {"a": "${HOME_DIR}/x", "b": ["${MISSING:-fallback}"], "c": "$${LITERAL}", "d": 3}
    assert expand(data, environ={"HOME_DIR": "/home/me"}) == {
        "a": "/home/me/x",
        "b": ["fallback"],
        "c": "${LITERAL}",
        "d": 3,
    }


def test_a_number_or_boolean_field_reads_a_value_that_is_one_reference(tmp_path: Path) -> None:
    text = (
        "middleware: {timeout: '${T:-30}', logging: '${LOG}'}\n"
        "catalog: {search: {max_results: '${N}'}}\n"
        "mcpServers:\n  gh:\n    command: npx\n    timeout: ${T2:-2.5}\n    disabled: ${OFF:-false}\n"
        "    env: {PORT: '${PORT:-8080}', FLAG: '${OFF:-false}'}\n"
    )
    config = load_config(write(tmp_path, "c.yaml", text), environ={"LOG": "true", "N": "7"})
    assert config.middleware is not None and config.catalog is not None
    assert (config.middleware.timeout, config.middleware.logging, config.catalog.search.max_results) == (30, True, 7)
    entry = config.mcp_servers["gh"]
    assert (entry.timeout, entry.disabled) == (2.5, False)
    assert entry.env == {"PORT": "8080", "FLAG": "false"}  # a field of strings keeps the text


@pytest.mark.parametrize(
    ("text", "value", "problem"),
    [
        ("catalog: {search: {max_results: '${N}'}}", "seven", "max_results: expected a whole number, got a string"),
        ("catalog: {search: {max_results: 'x${N}'}}", "7", "max_results: expected a whole number, got a string"),
        ("mcpServers: {gh: {command: npx, timeout: '${N}'}}", "nan", "gh.timeout: expected a number, got a string"),
        ("mcpServers: {gh: {command: npx, disabled: '${N}'}}", "yes", "disabled: expected true or false, got a string"),
    ],
)
def test_a_reference_that_spells_no_number_or_is_not_alone_stays_a_string(
    tmp_path: Path, text: str, value: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text), environ={"N": value})
    assert problem in str(caught.value)


def test_a_set_variable_with_a_default_is_shown_as_written_default_and_all() -> None:
    _, _, secrets = expand_all({"command": "${PYTHON_X:-python3}"}, environ={"PYTHON_X": "/opt/py/bin/python"})
    assert dict(secrets) == {"/opt/py/bin/python": "${PYTHON_X:-python3}"}
    assert shown_command("/opt/py/bin/python", ["up.py"], secrets) == "${PYTHON_X:-python3} up.py"


def test_an_empty_variable_takes_the_default() -> None:
    assert expand({"a": "${EMPTY:-d}"}, environ={"EMPTY": ""}) == {"a": "d"}


def test_a_missing_variable_names_the_variable_and_the_key_path(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "mcpServers:\n  gh:\n    command: npx\n    env: {TOKEN: '${GH_TOKEN_X}'}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    message = str(caught.value)
    assert str(path) in message
    assert "mcpServers.gh.env.TOKEN" in message
    assert "GH_TOKEN_X is not set" in message


def test_expanded_secrets_are_not_echoed_in_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "server: {mask_error_details: '${SECRET}'}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={"SECRET": "hunter2-very-secret"})
    assert "hunter2" not in str(caught.value)
    assert "server.mask_error_details: expected true or false, got a string" in str(caught.value)


@pytest.mark.parametrize(
    ("reference", "shown"),
    [("json:${FN}", "'json' has no attribute '${FN}'"), ("${FN}:ok", "no module named '${FN}'")],
)
def test_an_import_path_built_from_a_secret_is_shown_with_its_reference(
    tmp_path: Path, reference: str, shown: str
) -> None:
    path = write(tmp_path, "c.yaml", f"python: ['{reference}']\n")
    with pytest.raises(ConfigError) as caught:
        build(load_config(path, environ={"FN": "hunter2_very_secret"}), base_dir=tmp_path)
    assert "hunter2" not in str(caught.value)
    assert str(caught.value).startswith("python[0].import: cannot import") and shown in str(caught.value)


def shown_upstreams(path: Path, environ: dict[str, str], inputs: dict[str, str] | None = None) -> list[str]:
    """How `list`, `explain` and the logs show each upstream of the config at `path`."""
    composed = build(load_config(path, environ=environ, inputs=inputs), base_dir=path.parent)
    return [remote.target.describe() for remote in composed.remotes]


@pytest.mark.parametrize(
    ("text", "environ", "shown"),
    [
        (
            "mcpServers: {h: {url: 'http://127.0.0.1:18943/mcp', headers: {X-Debug: '${DEBUG}'}}}",
            {"DEBUG": "1"},
            "http://127.0.0.1:18943/mcp",
        ),
        ("mcpServers: {n: {command: '/usr/bin/nothere-${V}', args: [here]}}", {"V": "e"}, "/usr/bin/nothere-${V} here"),
        (
            "mcpServers: {n: {command: srv, args: ['--debug=${DEBUG}', '${DEBUG}', v1]}}",
            {"DEBUG": "1"},
            "srv --debug=${DEBUG} ${DEBUG} v1",
        ),
    ],
    ids=["url-and-header", "command", "args"],
)
def test_a_short_expanded_value_is_shown_as_its_reference_only_where_it_was_expanded(
    tmp_path: Path, text: str, environ: dict[str, str], shown: str
) -> None:
    """Every occurrence of a short value was replaced: http://${DEBUG}27.0.0.${DEBUG}:..."""
    assert shown_upstreams(write(tmp_path, "c.yaml", text), environ) == [shown]


def test_an_input_leaves_a_workspace_path_holding_its_value_as_it_is(tmp_path: Path) -> None:
    vscode = tmp_path / "explore-cli" / ".vscode"
    vscode.mkdir(parents=True)
    text = json.dumps({"servers": {"s": {"command": "${workspaceFolder}/srv", "args": ["--key", "${input:api-key}"]}}})
    path = write(vscode, "mcp.json", text)
    [shown] = shown_upstreams(path, {}, inputs={"api-key": "x"})
    assert shown == f"{vscode.parent.resolve()}/srv --key ${{input:api-key}}"


def test_a_command_that_expands_to_nothing_is_refused_at_its_key(tmp_path: Path) -> None:
    """It loaded, and the upstream failed to start with `PermissionError: ... ''`, retried forever."""
    path = write(tmp_path, "c.yaml", "mcpServers:\n  gh: {command: '${GH_BIN}'}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={"GH_BIN": ""})
    assert str(caught.value) == f"{path}: mcpServers.gh: 'command' is empty: give the program to start"


def test_an_unknown_key_suggests_the_closest_one(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "mcpServers:\n  github:\n    comand: npx\n")
    with pytest.raises(ConfigError, match=r"mcpServers\.github\.comand: unknown key \(did you mean 'command'\?\)"):
        load_config(path)


def test_an_unknown_top_level_key_suggests_mcpServers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="did you mean 'mcpServers'"):
        load_config(write(tmp_path, "c.json", '{"mcpservers": {}}'))


def test_a_wrong_type_names_the_full_key_path(tmp_path: Path) -> None:
    text = (
        "mcpServers:\n  github:\n    command: npx\n"
        "    tools:\n      search:\n        args:\n          q: {hide: maybe}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text))
    assert "mcpServers.github.tools.search.args.q.hide: expected true or false, got a string" in str(caught.value)


def test_a_server_without_command_or_url_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"mcpServers\.fs: missing 'command'"):
        load_config(write(tmp_path, "c.yaml", "mcpServers:\n  fs:\n    args: [x]\n"))


def test_a_misspelt_inject_source_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    text = "python:\n  - import: m:f\n    tools:\n      f:\n        args:\n          u: {inject: 'clam:sub'}\n"
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text))
    assert "python[0].tools.f.args.u.inject: unknown inject source 'clam:' (did you mean 'claim:'?)" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("glob", "problem"),
    [("gh_[abc", "never closed"), ("gh tools", "can never match a tool name"), ("", "must not be empty")],
)
def test_a_bad_glob_is_refused(tmp_path: Path, glob: str, problem: str) -> None:
    path = write(tmp_path, "c.json", json.dumps({"mcpServers": {"gh": {"command": "x", "include": [glob]}}}))
    with pytest.raises(ConfigError, match=r"mcpServers\.gh\.include\[0\]: .*" + problem):
        load_config(path)


def test_several_problems_are_listed_together(tmp_path: Path) -> None:
    text = "server: {on_duplicate: sometimes}\nmiddleware: {timeout: soon}\n"
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text))
    message = str(caught.value)
    assert "2 problems" in message
    assert "server.on_duplicate: expected 'error', 'warn', 'replace' or 'ignore'" in message
    assert "middleware.timeout: expected a number or a mapping, got a string" in message


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


def test_a_directory_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="needs POSIX permissions, not root")
def test_an_unreadable_file_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "server: {}\n")
    path.chmod(0)
    with pytest.raises(ConfigError, match="permission denied"):
        load_config(path)


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("c.yaml", "server: {name: [\n", "invalid YAML at line 2"),
        ("c.json", '{"server": }', "invalid JSON at line 1, column 12"),
        ("c.toml", "[server\n", "invalid TOML"),
    ],
)
def test_syntax_errors_name_the_format_and_place(tmp_path: Path, name: str, text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        load_config(write(tmp_path, name, text))


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        (
            "c.yaml",
            "mcpServers:\n  a: {command: x}\n  a: {command: y}\n",
            "c.yaml: mcpServers.a: key 'a' appears twice under mcpServers (lines 2 and 3)",
        ),
        (
            "c.json",
            '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}',
            "c.json: mcpServers.a: key 'a' appears twice under mcpServers",
        ),
        (
            "c.json",  # JSONC, as VS Code writes it
            '{"servers": {"a": {"command": "x"}, // first\n "a": {"command": "y"},},}',
            "c.json: servers.a: key 'a' appears twice under servers",
        ),
        ("c.toml", '[mcpServers.a]\ncommand = "x"\n[mcpServers.a]\ncommand = "y"\n', "invalid TOML"),
        ("c.toml", '[server]\nname = "a"\nname = "b"\n', "invalid TOML"),
    ],
)
def test_a_key_given_twice_is_refused(tmp_path: Path, name: str, text: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, name, text))
    assert problem in str(caught.value)


def test_every_key_given_twice_is_listed_with_its_path(tmp_path: Path) -> None:
    text = "server: {name: a}\npython:\n  - {import: 'm:s', prefix: a, prefix: b}\nserver: {}\n"
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text))
    assert str(caught.value) == (
        "c.yaml: 2 problems:\n"
        "  - server: key 'server' appears twice at the top level (lines 1 and 4)\n"
        "  - python[0].prefix: key 'prefix' appears twice under python[0] (line 3)"
    ).replace("c.yaml", str(tmp_path / "c.yaml"))


def test_a_yaml_merge_key_is_not_a_key_given_twice() -> None:
    text = "base: &base {command: npx, args: [a]}\nmcpServers:\n  a: {<<: *base, args: [b]}\n"
    assert parse_text(text, "yaml", "c.yaml")["mcpServers"] == {"a": {"command": "npx", "args": ["b"]}}


@pytest.mark.parametrize("name", ["c.json", "c.yaml"])
def test_a_file_nested_too_deeply_to_expand_is_a_config_error(tmp_path: Path, name: str) -> None:
    """600 nested lists parse (JSON's own limit is about 1,000), and expanding them was a traceback."""
    path = write(tmp_path, name, '{"server": {"instructions": ' + "[" * 600 + "]" * 600 + "}}")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: ") and str(caught.value).endswith("nested too deeply to read")


def test_the_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(write(tmp_path, "c.yaml", "- a\n- b\n"))


def test_an_empty_file_is_an_empty_config(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "c.yaml", "")).mcp_servers == {}


def test_a_misspelt_choice_suggests_the_closest_one(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "python:\n  - {import: 'm:s', mode: mont}\n")
    with pytest.raises(
        ConfigError, match=r"python\[0\]\.mode: expected 'mount' or 'import' \(did you mean 'mount'\?\)"
    ):
        load_config(path)


def test_a_reference_inside_a_default_is_refused_naming_the_key(tmp_path: Path) -> None:
    """Never the text `${B}` (nor `B`'s value) in the expanded config."""
    path = write(tmp_path, "c.yaml", "mcpServers:\n  h: {url: '${MCP_URL:-${FALLBACK_URL}}'}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={"FALLBACK_URL": "https://mcp.example.com/mcp"})
    assert str(caught.value) == (
        f"{path}: mcpServers.h.url: '${{MCP_URL:-...}}' holds a reference in its default: nested references "
        "are not supported (set MCP_URL, or write the default as plain text)"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("mcpServers: {a: {command: x, timeout: true}}", "mcpServers.a.timeout: expected a number, got true or false"),
        (
            "mcpServers: {a: {command: x, connect_timeout: true}}",
            "mcpServers.a.connect_timeout: expected a number, got true or false",
        ),
        ("mcpServers: {a: {command: x, timeout: '5'}}", "mcpServers.a.timeout: expected a number, got a string"),
        (
            "mcpServers: {a: {url: 'https://h/mcp', forward_caller_token: true, caller_sessions: '8'}}",
            "mcpServers.a.caller_sessions: expected a whole number, got a string",
        ),
        (
            "server: {store: {url: 'redis://h', max_value_bytes: true}}",
            "server.store.max_value_bytes: expected a whole number, got true or false",
        ),
        ("server: {tasks: {answer_within: false}}", "server.tasks.answer_within: expected a number, got true or false"),
        ("catalog: {search: {max_results: '3'}}", "catalog.search.max_results: expected a whole number, got a string"),
        (
            "openapi: {o: {spec: s.json, max_response_bytes: true}}",
            "openapi.o.max_response_bytes: expected a whole number, got true or false",
        ),
        (
            "transforms: [{tools: '*', limit_result: {max_items: true}}]",
            "transforms[0].limit_result.max_items: expected a whole number, got true or false",
        ),
        ("middleware: {retry: {attempts: '3'}}", "middleware.retry.attempts: expected a whole number, got a string"),
        ("middleware: {retry: {jitter: true}}", "middleware.retry.jitter: expected a number, got true or false"),
        ("middleware: {timeout: {default: '30'}}", "middleware.timeout.default: expected a number, got a string"),
        ("middleware: {rate_limit: {rate: true}}", "middleware.rate_limit.rate: expected a number, got true or false"),
    ],
    ids=[
        "timeout",
        "connect_timeout",
        "timeout as text",
        "caller_sessions",
        "bytes",
        "seconds >= 0",
        "results",
        "response bytes",
        "items",
        "middleware attempts",
        "middleware jitter",
        "middleware timeout",
        "middleware rate",
    ],
)
def test_a_number_is_never_read_from_a_boolean_or_a_string(tmp_path: Path, text: str, problem: str) -> None:
    """`timeout: true` is no 1-second timeout, `"3"` no 3."""
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text + "\n"))
    assert str(caught.value) == f"{tmp_path / 'c.yaml'}: {problem}"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "mcpServers:\n  no: {command: x}\n",
            "mcpServers: a key is true or false, not a name "
            "(unquoted, YAML reads on, off, yes and no as booleans): quote it",
        ),
        ("mcpServers:\n  1password: {command: x}\n  123: {command: x}\n", "mcpServers: a key is a number: quote it"),
        (
            "python:\n  - {import: 'm:s', tools: {~: {name: t}}}\n",
            "python[0].tools: a key is null, not a name (unquoted, YAML reads ~ as null): quote it",
        ),
    ],
    ids=["boolean", "number", "null"],
)
def test_a_key_yaml_reads_as_no_string_is_named_by_its_mapping(tmp_path: Path, text: str, problem: str) -> None:
    """A server named `no` or `on` was reported at `mcpServers[0]` / `mcpServers[1]`: a list index
    the file does not have."""
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, "c.yaml", text))
    assert str(caught.value) == f"{tmp_path / 'c.yaml'}: {problem}"


def test_a_whole_number_is_a_number_of_seconds(tmp_path: Path) -> None:
    text = "mcpServers: {a: {command: x, timeout: 5, connect_timeout: 2.5}}\nserver: {tasks: {answer_within: 0}}\n"
    config = load_config(write(tmp_path, "c.yaml", text))
    assert (config.mcp_servers["a"].timeout, config.mcp_servers["a"].connect_timeout) == (5, 2.5)
    assert config.server.tasks is not None and config.server.tasks.answer_within == 0
