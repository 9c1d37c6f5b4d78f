"""No secret reaches a log record, at any level, whoever writes it (`toolweave.telemetry.logs.RedactSecrets`)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from tests.conftest import subprocess_env
from tests.serving import PORT, spawned
from toolweave.telemetry.logs import HideUrlSecrets, JsonFormatter, RedactSecrets

TOKEN = "hunter2-0123456789"
PASSWORD = "pa55-literal-word"
ROOT = Path(__file__).resolve().parents[2]
UPSTREAMS = ROOT / "tests" / "server" / "upstreams"


@pytest.fixture
def secret_config(tmp_path: Path) -> Path:
    """Two upstreams that fail at once: one started with the token as an argument, one reached at a
    URL holding it (userinfo and query) and a password written in the file."""
    config = tmp_path / "secret.yaml"
    config.write_text(
        "mcpServers:\n"
        "  tokened:\n"
        f"    command: {sys.executable}\n"
        "    args: [-c, 'import sys; sys.exit(3)', --token, '${DEMO_TOKEN}']\n"
        "  remote:\n"
        "    url: 'http://user:${DEMO_TOKEN}@127.0.0.1:9/mcp?key=${DEMO_TOKEN}'\n"
        "  literal:\n"
        f"    url: 'http://bot:{PASSWORD}@127.0.0.1:9/mcp'\n"
    )
    return config


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--log-level", "debug"],
        ["serve", "--log-level", "debug", "--log-format", "json"],
        ["call", "--log-level", "debug", "--allow-down", "remote_x"],
    ],
    ids=["serve", "serve-json", "call"],
)
def test_the_cli_logs_no_secret_at_debug(secret_config: Path, command: list[str]) -> None:
    name, *options = command
    done = subprocess.run(
        [sys.executable, "-m", "toolweave.cli", name, str(secret_config), *options],
        cwd=ROOT,
        env=subprocess_env(DEMO_TOKEN=TOKEN),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    output = done.stdout + done.stderr
    assert "Connecting to StreamableHTTP endpoint" in output  # the mcp SDK's DEBUG line was written
    assert "${DEMO_TOKEN}@127.0.0.1:9/mcp?key=${DEMO_TOKEN}" in output
    assert TOKEN not in output
    assert PASSWORD not in output


def test_a_secret_injected_into_an_upstream_call_is_not_logged_with_its_arguments(tmp_path: Path) -> None:
    """The SDK logs the request it sends, and the answer, at DEBUG: both carry the injected key."""
    with spawned(sys.executable, str(UPSTREAMS / "tw_upstream.py"), "http", PORT) as upstream:
        config = tmp_path / "inject.yaml"
        config.write_text(
            f"mcpServers:\n  up:\n    url: {upstream.url}/mcp\n"
            "    tools:\n      echo:\n        args:\n          text: {inject: 'env:ECHO_KEY'}\n"
        )
        done = subprocess.run(
            [sys.executable, "-m", "toolweave.cli", "call", str(config), "echo", "--log-level", "debug"],
            cwd=ROOT,
            env=subprocess_env(ECHO_KEY=TOKEN),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "Sending client message: jsonrpc='2.0' id=" in done.stderr and "'arguments': {'text': '***'}" in done.stderr
    assert TOKEN not in done.stdout + done.stderr


LOGGING_TOOL = """
import logging
from toolweave import Server

server = Server("ops")


@server.tool
def boom(api_key: str) -> str:
    logging.getLogger("ops").warning("boom called with key %s", api_key)
    return "done"
"""


def test_a_secret_injected_into_a_python_tool_is_not_in_what_the_tool_logs(tmp_path: Path) -> None:
    """With no MCP upstream in the config, nothing counted the call's secrets for the log filter."""
    (tmp_path / "ops_tools.py").write_text(LOGGING_TOOL)
    config = tmp_path / "gw.yaml"
    config.write_text(
        "python:\n  - import: ops_tools:server\n    tools:\n      boom:\n"
        "        args:\n          api_key: {inject: 'env:OPS_KEY'}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "toolweave.cli", "call", str(config), "boom"],
        cwd=tmp_path,
        env=subprocess_env(OPS_KEY=TOKEN, PYTHONPATH=f"{ROOT}:{tmp_path}"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "boom called with key ***" in done.stderr and TOKEN not in done.stdout + done.stderr


def test_a_secret_query_value_in_an_httpx_request_line_is_hidden() -> None:
    """httpx logs every request's URL at INFO: an API key sent as `?api_key=` was in it."""
    record = logging.LogRecord("httpx2", logging.INFO, "", 1, 'HTTP Request: %s %s "%s %d %s"', (), None)
    record.args = ("GET", httpx2.URL(f"http://127.0.0.1:8123/pets?api_key={TOKEN}&limit=2"), "HTTP/1.1", 200, "OK")
    HideUrlSecrets().filter(record)
    assert record.getMessage() == 'HTTP Request: GET http://127.0.0.1:8123/pets?api_key=***&limit=2 "HTTP/1.1 200 OK"'


def record_with(message: str, *args: object, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("mcp.client", logging.DEBUG, __file__, 1, message, args, None)
    record.__dict__.update(extra)
    return record


def test_the_secret_leaves_the_message_exception_stack_and_extra_fields() -> None:
    redact = RedactSecrets(lambda: {TOKEN: "${DEMO_TOKEN}"})
    try:
        raise RuntimeError(f"GET https://api.example.test/?key={TOKEN} failed")
    except RuntimeError:
        record = record_with("calling %s", f"https://u:{TOKEN}@h/", url=TOKEN)
        record.exc_info = sys.exc_info()
        record.stack_info = f"Stack (most recent call last):\n  token={TOKEN}"
    assert redact.filter(record)
    text = logging.Formatter("%(message)s %(url)s").format(record)
    line = JsonFormatter().format(record)
    assert TOKEN not in text + line
    assert "calling https://u:${DEMO_TOKEN}@h/ ${DEMO_TOKEN}" in text
    assert "RuntimeError: GET https://api.example.test/?key=${DEMO_TOKEN} failed" in json.loads(line)["exception"]


def test_a_percent_encoded_secret_is_hidden_too() -> None:
    secret = "p@ss word/1"
    redact = RedactSecrets(lambda: {secret: "***"})
    record = record_with("HTTP Request: GET https://h/?key=p%40ss%20word%2F1 and q=p%40ss+word%2F1")
    redact.filter(record)
    assert record.getMessage() == "HTTP Request: GET https://h/?key=*** and q=***"


def test_a_value_given_once_stays_hidden_after_a_reload_drops_it() -> None:
    current = {"old-secret-1": "${OLD}"}
    redact = RedactSecrets(lambda: current)
    redact.filter(record_with("warming up"))
    current = {"new-secret-2": "${NEW}"}
    record = record_with("closing old-secret-1, opening new-secret-2")
    redact.filter(record)
    assert record.getMessage() == "closing ${OLD}, opening ${NEW}"


def test_a_passing_value_is_hidden_only_while_it_is_given() -> None:
    running: set[str] = {"per-call-token-1"}
    redact = RedactSecrets(lambda: {"hunter2-0123": "${TOKEN}"}, passing=lambda: running)
    during = record_with("POST hunter2-0123 per-call-token-1")
    redact.filter(during)
    running.clear()
    after = record_with("per-call-token-1 was sent earlier")
    redact.filter(after)
    assert during.getMessage() == "POST ${TOKEN} ***"
    assert after.getMessage() == "per-call-token-1 was sent earlier"  # not kept: per-call values would pile up


def test_values_too_short_to_be_secrets_are_left_in_the_text() -> None:
    redact = RedactSecrets(lambda: {"1": "${VERBOSE}", "abcd": "${KEY}"})
    record = record_with("line 1: abcd")
    redact.filter(record)
    assert record.getMessage() == "line 1: ${KEY}"
