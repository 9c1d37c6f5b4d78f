"""The `toolweave` command, run in a subprocess: version, help, schema, list, explain, call, bad configs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acceptance.cli_helpers import FIXTURES, run_cli
from tests.conftest import subprocess_env
from toolweave import __version__
from toolweave.config import config_schema

BASIC = str(FIXTURES / "basic.yaml")


def test_version_prints_the_package_version() -> None:
    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"toolweave {__version__}"


@pytest.mark.parametrize("command", ["schema", "serve", "list", "explain", "call"])
def test_every_command_has_help_with_examples(command: str) -> None:
    done = run_cli(command, "--help")
    assert done.returncode == 0
    assert "Examples" in done.stdout
    assert f"toolweave {command}" in done.stdout


def test_schema_prints_the_config_json_schema() -> None:
    done = run_cli("schema")
    assert done.returncode == 0
    assert json.loads(done.stdout) == config_schema()


def test_list_prints_one_line_per_tool_when_not_a_terminal() -> None:
    done = run_cli("list", BASIC)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "tools (4):"
    assert "  calc_add(a, b)  Add two numbers." in lines
    assert "calc_internal_reset" not in done.stdout
    assert "prompts (0):" in lines


def test_list_json_gives_names_and_schemas() -> None:
    done = run_cli("list", BASIC, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [tool["name"] for tool in data["tools"]] == ["calc_add", "calc_divide", "shout", "whisper"]
    assert data["tools"][0]["inputSchema"]["required"] == ["a", "b"]
    assert data["prompts"] == [] and data["resources"] == []


def test_explain_shows_origin_transforms_middleware_and_schema() -> None:
    done = run_cli("explain", BASIC, "calc_add")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "origin: function calc (add)" in out
    assert "1. mounted from server 'calc' with prefix 'calc'" in out
    assert "middleware: none" in out
    assert "schema (unchanged)" in out


def test_explain_json_lists_every_tool() -> None:
    done = run_cli("explain", BASIC, "--json")
    assert done.returncode == 0, done.stderr
    explained = json.loads(done.stdout)
    assert [item["name"] for item in explained] == ["calc_add", "calc_divide", "shout", "whisper"]
    assert explained[0]["origin"] == {"kind": "function", "source": "calc", "name": "add"}


def test_explain_an_unknown_tool_suggests_a_name() -> None:
    done = run_cli("explain", BASIC, "calc_ad")
    assert done.returncode == 1
    assert "unknown tool 'calc_ad'; did you mean 'calc_add'?" in done.stderr


def test_call_prints_the_text_result() -> None:
    done = run_cli("call", BASIC, "calc_add", "a=2", "b=40")
    assert (done.returncode, done.stdout.strip()) == (0, "42")


def test_call_parses_values_as_json_else_strings() -> None:
    done = run_cli("call", BASIC, "shout", "text=hello world")
    assert json.loads(done.stdout) == {"shout": "HELLO WORLD"}


def test_call_takes_json_args() -> None:
    done = run_cli("call", BASIC, "calc_divide", "--json-args", '{"a": 1, "b": 4}')
    assert (done.returncode, done.stdout.strip()) == (0, "0.25")


def test_call_json_prints_the_whole_result() -> None:
    done = run_cli("call", BASIC, "calc_add", "a=1", "b=1", "--json")
    result = json.loads(done.stdout)
    assert result["structuredContent"] == {"result": 2}
    assert result["isError"] is False
    assert result["content"][0]["text"] == "2"


def test_a_failing_call_prints_the_error_and_exits_1() -> None:
    done = run_cli("call", BASIC, "calc_divide", "a=1", "b=0")
    assert done.returncode == 1
    assert "b must not be zero" in done.stderr
    assert "Traceback" not in done.stderr


def test_invalid_arguments_are_listed_and_exit_1() -> None:
    done = run_cli("call", BASIC, "calc_add", "a=x")
    assert done.returncode == 1
    assert "a: Input should be a valid integer" in done.stderr
    assert "b: Field required" in done.stderr


def test_calling_an_unknown_tool_suggests_a_name() -> None:
    done = run_cli("call", BASIC, "shoot", "text=x")
    assert done.returncode == 1
    assert "unknown tool 'shoot'; did you mean 'shout'?" in done.stderr


def test_an_argument_without_equals_is_a_usage_error() -> None:
    done = run_cli("call", BASIC, "calc_add", "a")
    assert done.returncode == 2
    assert "argument 'a' is not key=value" in done.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bad_unknown_key.yaml", "mcpServers.github.comand: unknown key (did you mean 'command'?)"),
        (
            "bad_wrong_type.yaml",
            "mcpServers.github.tools.search.args.q.hide: expected true or false, got a string",
        ),
        ("bad_missing_command.json", "mcpServers.github: missing 'command'"),
        (
            "bad_inject.toml",
            "python[0].tools.add.args.a.inject: unknown inject source 'ctx:' (did you mean 'context:'?)",
        ),
        ("bad_glob.yaml", "python[0].include[0]: this pattern has a '[' that is never closed"),
        (
            "bad_env.yaml",
            "mcpServers.github.env.GITHUB_TOKEN: environment variable TOOLWEAVE_TEST_UNSET_TOKEN is not set",
        ),
        ("does_not_exist.yaml", "cannot read the config file: it does not exist"),
        (".", "cannot read the config file: it is a directory"),
    ],
)
def test_an_invalid_config_gives_its_message_and_exits_1(name: str, message: str) -> None:
    path = FIXTURES / name
    done = run_cli("list", str(path))
    assert done.returncode == 1
    assert f"error: {path}" in done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("command", [["serve"], ["serve", "--transport", "http"]])
def test_nothing_starts_from_an_invalid_config(command: list[str]) -> None:
    path = str(FIXTURES / "bad_unknown_key.yaml")
    done = run_cli(command[0], path, *command[1:])
    assert done.returncode == 1
    assert "unknown key (did you mean 'command'?)" in done.stderr
    assert "Serving" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "bad_hide_required.yaml",
            "python[0].tools.add.args.a.hide: a required argument cannot be hidden without a value: "
            "add `default:` or `inject:`",
        ),
        (
            "bad_rule.yaml",
            "transforms[0].args.zz.description: tool 'add' has no argument 'zz' (it has: a, b)",
        ),
    ],
)
def test_a_transform_refusing_a_tool_names_the_config_key(name: str, message: str) -> None:
    done = run_cli("list", str(FIXTURES / name))
    assert done.returncode == 1
    assert f"error: {FIXTURES / name}: {message}" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_composition_error_exits_1_without_a_traceback() -> None:
    clash = FIXTURES / "clash.yaml"
    done = run_cli("list", str(clash))
    assert done.returncode == 1
    assert "'add' is claimed twice" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_tools_key_naming_no_tool_is_a_warning() -> None:
    done = run_cli("list", str(FIXTURES / "misspelt_tool.yaml"))
    assert done.returncode == 0
    assert "warning:" in done.stderr
    assert "python[0].tools.ad: this source has no tool 'ad' (did you mean 'add'?)" in done.stderr
    assert "calc_" not in done.stdout and "  add(a, b)" in done.stdout


def test_the_installed_script_imports_modules_from_the_current_directory(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("toolweave")
    if not script.exists():
        pytest.skip("the toolweave script is not installed in this environment")
    project, configs = tmp_path / "project", tmp_path / "configs"
    project.mkdir()
    configs.mkdir()
    (project / "projtools.py").write_text("def ping() -> str:\n    '''Answer pong.'''\n    return 'pong'\n")
    (configs / "c.yaml").write_text("python: ['projtools:ping']\n")
    done = subprocess.run(
        [str(script), "call", str(configs / "c.yaml"), "ping"],
        cwd=project,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "pong"), done.stderr
