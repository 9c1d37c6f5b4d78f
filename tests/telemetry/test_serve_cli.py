"""`toolweave serve --metrics --log-format json`: a call's JSON log line carries its trace id,
and the command's own meter provider feeds `/metrics`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import mcp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.acceptance.cli_helpers import FIXTURES, ROOT, run_cli
from tests.conftest import subprocess_env
from tests.serving import toolweave_served
from tests.telemetry.conftest import Spans
from toolweave.mcp.http_auth import QUERY_TOKEN_NAMES

BASIC = str(FIXTURES / "basic.yaml")


def call_lines(stderr: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stderr.splitlines()]  # every line is JSON
    return [line for line in lines if line["logger"] == "toolweave.calls"]


async def test_json_logs_have_one_line_per_call_with_its_trace_id_and_metrics_are_served(
    spans: Spans, tmp_path: Path
) -> None:
    errors = tmp_path / "stderr.log"
    with (
        errors.open("w") as stderr,
        toolweave_served(BASIC, "--metrics", "--log-format", "json", stderr=stderr) as server,
    ):
        base = server.url
        async with mcp.Client(base + "/mcp") as client:
            await client.call_tool("calc_add", {"a": 20, "b": 22})
            await client.call_tool("calc_divide", {"a": 1, "b": 0})
        async with httpx2.AsyncClient() as http:
            scraped = await http.get(base + "/metrics")

    sent = spans.named("MCP send tools/call calc_add")
    logged = call_lines(errors.read_text())
    assert [(line["tool"], line["outcome"]) for line in logged] == [("calc_add", "ok"), ("calc_divide", "tool_error")]
    assert logged[0]["trace_id"] == f"{sent.context.trace_id:032x}"
    assert logged[0]["arguments"] == {"a": "<redacted>", "b": "<redacted>"}
    assert {line["pid"] for line in logged} == {server.process.pid}  # which worker wrote it
    families = {family.name: family for family in text_string_to_metric_families(scraped.text)}
    counted = {
        (sample.labels["gen_ai_tool_name"], sample.labels["toolweave_outcome"]): sample.value
        for sample in families["toolweave_tool_calls"].samples
        if sample.name.endswith("_total")
    }
    assert counted == {("calc_add", "ok"): 1.0, ("calc_divide", "tool_error"): 1.0}


@pytest.mark.parametrize("log_format", ["json", "text"])
async def test_uvicorns_lines_follow_the_log_format_and_never_show_a_token_sent_in_the_url(
    tmp_path: Path, log_format: str
) -> None:
    token = "eyJhbGciOiJSUzI1NiJ9.query-canary-DDDD"
    errors = tmp_path / "stderr.log"
    with (
        errors.open("w") as stderr,
        toolweave_served(BASIC, "--log-format", log_format, "--log-level", "info", stderr=stderr) as server,
        httpx2.Client() as http,
    ):
        refused = [http.post(f"{server.url}/mcp?{name}={token}", json={}) for name in sorted(QUERY_TOKEN_NAMES)]
    assert {response.status_code for response in refused} == {400}  # (no auth: an empty object is no request)
    text = errors.read_text()
    assert token not in text
    for name in QUERY_TOKEN_NAMES:  # each name the auth edge refuses a token under
        access = [line for line in text.splitlines() if f"/mcp?{name}=" in line]
        assert access and all(f"{name}=***" in line for line in access), name
    if log_format == "json":
        lines = [json.loads(line) for line in text.splitlines()]  # every line is JSON, uvicorn's too
        assert {"uvicorn.error", "uvicorn.access"} <= {line["logger"] for line in lines}
        assert not any("color_message" in line for line in lines)


def test_metrics_need_the_http_transport() -> None:
    done = run_cli("serve", BASIC, "--metrics")
    assert done.returncode == 2
    assert "--metrics is served over HTTP" in done.stderr


def test_metrics_without_the_prometheus_extra_say_how_to_install_it() -> None:
    blocked = "import sys; sys.modules['prometheus_client'] = None; from toolweave.cli import main; main()"
    command = [sys.executable, "-c", blocked, "serve", BASIC, "--transport", "http", "--metrics"]
    done = subprocess.run(command, cwd=ROOT, env=subprocess_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "pip install 'toolweave[prometheus]'" in done.stderr


def test_metrics_with_workers_are_refused_with_what_to_do_instead() -> None:
    done = run_cli("serve", BASIC, "--transport", "http", "--workers", "2", "--metrics")
    assert done.returncode == 2
    assert "a scrape reaches one worker" in done.stderr and "OTLP" in done.stderr


def test_with_json_logs_the_clis_own_warnings_and_errors_are_json_lines_too(tmp_path: Path) -> None:
    """`warning: environment variable ... is not set` and a config's `error:` were plain text."""
    (tmp_path / "ops_tools.py").write_text(
        "from toolweave import Server\nserver = Server('ops')\n"
        "@server.tool\ndef boom(api_key: str) -> str:\n    return 'done'\n"
    )
    config = tmp_path / "gw.yaml"
    config.write_text(
        "python:\n  - import: ops_tools:server\n    tools:\n      boom:\n"
        "        args:\n          api_key: {inject: 'env:PROBE_UNSET_OPS_KEY'}\n"
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("middleware: {timeout: soon}\n")
    env = {"PYTHONPATH": f"{ROOT}:{tmp_path}"}
    served = subprocess.run(
        [sys.executable, "-m", "toolweave", "serve", str(config), "--log-format", "json"],
        input="",
        cwd=tmp_path,
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    refused = run_cli("serve", str(broken), "--log-format", "json")
    lines = [json.loads(line) for line in (served.stderr + refused.stderr).splitlines()]  # every line parses
    warned = [line for line in lines if "PROBE_UNSET_OPS_KEY is not set" in line["message"]]
    failed = [line for line in lines if "middleware.timeout" in line["message"]]
    assert warned and warned[0]["level"] == "WARNING" and failed and failed[0]["level"] == "ERROR"
    assert refused.returncode == 1
