"""`/healthz` and `/readyz`: cheap, unauthenticated, naming nothing; readiness follows the
required upstreams."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.conftest import subprocess_env
from tests.serving import serving
from toolweave import AuthInfo, RemoteServer, Server
from toolweave.config import build_file
from toolweave.mcp.health import readiness, required_upstreams
from toolweave.server.remote import Backoff

HERE = Path(__file__).resolve().parent


def upstream(tmp_path: Path, name: str, *, required: bool) -> RemoteServer:
    env = subprocess_env(SPANS_FILE=str(tmp_path / f"{name}.jsonl"))
    return RemoteServer.stdio(
        sys.executable,
        [str(HERE / "traced_upstream.py")],
        env=env,
        required=required,
        backoff=Backoff(initial=0.5, maximum=0.5),
    )


async def status(http: httpx2.AsyncClient, url: str) -> int:
    return (await http.get(url)).status_code


async def wait_for_status(http: httpx2.AsyncClient, url: str, wanted: int) -> None:
    with anyio.fail_after(15):
        while await status(http, url) != wanted:  # noqa: ASYNC110 - polling what a probe sees
            await anyio.sleep(0.05)


async def test_readyz_flips_to_503_when_a_required_upstream_dies_and_back_after_its_restart(tmp_path: Path) -> None:
    gateway = Server("gateway")
    required = upstream(tmp_path, "needed", required=True)
    gateway.mount(required, prefix="needed")
    async with serving(gateway.http_app()) as base, httpx2.AsyncClient() as http:
        ready = await http.get(base + "/readyz")
        pid = (await gateway.call_tool("needed_pid", {})).structured_content["result"]  # type: ignore[index]
        os.kill(pid, signal.SIGKILL)
        await wait_for_status(http, base + "/readyz", 503)
        down = await http.get(base + "/readyz")
        live = await http.get(base + "/healthz")
        await wait_for_status(http, base + "/readyz", 200)
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "reason": "ready"}
    assert down.json() == {"status": "not ready", "reason": "1 required upstream not connected"}
    assert live.status_code == 200  # the process still serves


async def test_an_upstream_not_marked_required_does_not_make_the_gateway_unready(tmp_path: Path) -> None:
    gateway = Server("gateway")
    optional = upstream(tmp_path, "optional", required=False)
    gateway.mount(optional, prefix="optional")
    async with serving(gateway.http_app()) as base, httpx2.AsyncClient() as http:
        pid = (await gateway.call_tool("optional_pid", {})).structured_content["result"]  # type: ignore[index]
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(10):
            while optional.connected:  # noqa: ASYNC110 - no event for a lost session
                await anyio.sleep(0.02)
        answer = await http.get(base + "/readyz")
    assert answer.status_code == 200


async def test_a_server_that_is_not_running_is_not_ready() -> None:
    server = Server("idle")
    assert readiness(server) == (False, "not started")
    async with server:
        assert readiness(server) == (True, "ready")


async def test_probes_need_no_token_and_name_no_tool() -> None:
    server = Server("guarded")
    server.add_tool(lambda: "secret", name="very_private_tool_name")

    def nobody(headers: object) -> AuthInfo | None:
        return None

    async with serving(server.http_app(authenticate=nobody)) as base, httpx2.AsyncClient() as http:
        mcp_answer = await http.post(base + "/mcp", json={})
        answers = [await http.get(base + path) for path in ("/healthz", "/readyz")]
    assert mcp_answer.status_code == 401
    assert [answer.status_code for answer in answers] == [200, 200]
    assert all("very_private_tool_name" not in answer.text for answer in answers)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics"])
async def test_probes_can_be_left_out(path: str) -> None:
    app = Server("quiet").http_app(health=False)
    async with serving(app) as base, httpx2.AsyncClient() as http:
        answer = await http.get(base + path)
    assert answer.status_code == 404


def test_a_config_entry_marks_its_upstream_required(tmp_path: Path) -> None:
    config = tmp_path / "gateway.yaml"
    config.write_text(
        "mcpServers:\n"
        "  needed: {command: python3, args: [needed.py], required: true}\n"
        "  optional: {command: python3, args: [optional.py]}\n"
    )
    composed = build_file(config)
    assert sorted(remote.name for remote in required_upstreams(composed.server)) == ["needed"]
