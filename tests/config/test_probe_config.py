"""Config problems an operator learns at startup, probed with real files and the real CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.acceptance.cli_helpers import COMMAND, ROOT
from tests.conftest import subprocess_env
from toolweave.config import build_file, load_config

SHAPES = Path(__file__).parents[1] / "openapi" / "shapes.yaml"
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def api_config(tmp_path: Path) -> Path:
    """An `openapi` entry whose API key header comes from an environment variable nobody set."""
    shutil.copy(SHAPES, tmp_path / "shapes.yaml")
    config = tmp_path / "gateway.yaml"
    config.write_text(
        "openapi:\n  shapes:\n    spec: shapes.yaml\n    base_url: http://127.0.0.1:9\n"
        "    headers: {x-api-key: 'env:PROBE_UNSET_API_KEY'}\n"
    )
    return config


def test_an_api_header_from_an_unset_variable_is_reported_before_any_call(api_config: Path) -> None:
    """Injected arguments were checked at startup; an HTTP API's credential headers were not, so
    the first call failed with a masked error and the variable was named only in the log."""
    missing = build_file(api_config).missing_environment()
    assert missing == [
        "environment variable PROBE_UNSET_API_KEY is not set: calls to 'add_shape_', 'put_labels_id', 'tree' will fail"
    ]


def test_list_warns_about_the_unset_variable(api_config: Path) -> None:
    done = subprocess.run(
        [*COMMAND, "list", str(api_config)], capture_output=True, text=True, env=subprocess_env(), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "warning: environment variable PROBE_UNSET_API_KEY is not set" in done.stderr


ECHO_TOOL = "def echo(text: str, note: str = '') -> str:\n    return text\n"


def test_an_unset_variable_is_reported_for_a_tool_whose_result_is_limited(tmp_path: Path) -> None:
    """`limit_result` wraps the run that reads the variable, so the tool was not reported at all;
    once reported, it was named twice, as its source and as the client names it ('echo', 'py_echo')."""
    (tmp_path / "echo_tools.py").write_text(ECHO_TOOL)
    entry = "{limit_result: {max_bytes: 1000}, args: {text: {inject: 'env:PROBE_UNSET_TEXT'}}}"
    config = tmp_path / "gateway.yaml"
    config.write_text(f"python:\n  - {{import: 'echo_tools:echo', prefix: py, tools: {{echo: {entry}}}}}\n")
    assert build_file(config).missing_environment() == [
        "environment variable PROBE_UNSET_TEXT is not set: calls to 'py_echo' will fail"
    ]


def test_an_unset_variable_names_the_tools_of_an_http_api_as_clients_call_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The example's `list_pets` has `limit_result` (no warning at all) and a prefix (named 'list_pets')."""
    monkeypatch.delenv("PETSTORE_KEY", raising=False)
    missing = build_file(ROOT / "examples" / "openapi.yaml").missing_environment()
    assert missing == ["environment variable PETSTORE_KEY is not set: calls to 'pets_list_pets' will fail"]


def test_a_tool_behind_search_is_named_as_search_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PETSTORE_KEY", raising=False)
    missing = build_file(ROOT / "examples" / "search_gateway.yaml").missing_environment()
    assert missing == ["environment variable PETSTORE_KEY is not set: calls to 'pets_list_pets' will fail"]


def test_an_error_excerpt_of_zero_is_the_status_alone_as_documented(api_config: Path) -> None:
    api_config.write_text(api_config.read_text() + "    error_excerpt: 0\n")
    assert load_config(api_config).openapi["shapes"].error_excerpt == 0
    build_file(api_config)  # and it builds


def test_a_composition_error_names_the_file(tmp_path: Path) -> None:
    """Errors found when the catalog compiles (a clash, `always` naming no tool) named no file."""
    config = tmp_path / "gateway.yaml"
    config.write_text("python:\n  - import: posixpath:basename\ncatalog:\n  search: {always: [nope]}\n")
    done = subprocess.run(
        [*COMMAND, "list", str(config)], capture_output=True, text=True, env=subprocess_env(), timeout=60
    )
    assert done.returncode == 1
    assert f"error: {config}: cannot compose the server: SearchTools always names tools" in done.stderr


def test_an_sse_server_given_as_a_plain_url_is_named_as_one(tmp_path: Path) -> None:
    """Cursor and Windsurf try the legacy transport when `url` does not speak streamable HTTP, so
    their files hold plain `url: .../sse` entries; toolweave's error said only "Server returned an
    error response"."""
    from tests.acceptance.test_bring_your_servers import PYTHON, SDK_UPSTREAM
    from tests.serving import PORT, spawned

    with spawned(PYTHON, SDK_UPSTREAM, "sse", PORT) as legacy:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"legacy": {"url": f"{legacy.url}/sse"}}}))
        done = subprocess.run(
            [*COMMAND, "list", str(config)], capture_output=True, text=True, env=subprocess_env(), timeout=60
        )
    assert done.returncode == 1
    assert "(a URL ending in /sse is usually a legacy SSE server: give it `type: sse`)" in done.stderr


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("deep.json", '{"mcpServers": ' + DEEP + "}", "invalid JSON: nested too deeply to read"),
        ("deep.yaml", "mcpServers: " + DEEP, "invalid YAML: nested too deeply to read"),
    ],
)
def test_a_config_nested_too_deeply_is_an_error_not_a_traceback(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    config = tmp_path / name
    config.write_text(text)
    done = subprocess.run(
        [*COMMAND, "list", str(config)], capture_output=True, text=True, env=subprocess_env(), timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip() == f"error: {config}: {message}"
