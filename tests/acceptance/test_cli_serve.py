"""`toolweave serve`, driven by the official `mcp` client over stdio and over HTTP."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator

import httpx2
import mcp
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.acceptance.cli_helpers import COMMAND, FIXTURES, ROOT
from tests.conftest import subprocess_env
from tests.serving import toolweave_served

BASIC = str(FIXTURES / "basic.yaml")


def stdio_params(config: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=COMMAND[0], args=[*COMMAND[1:], "serve", config], env=subprocess_env(**env), cwd=str(ROOT)
    )


async def test_serve_stdio_answers_the_mcp_client() -> None:
    async with mcp.Client(stdio_params(BASIC)) as client:
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["calc_add", "calc_divide", "shout", "whisper"]
        result = await client.call_tool("calc_add", {"a": 20, "b": 22})
        assert result.structured_content == {"result": 42}
        failed = await client.call_tool("calc_divide", {"a": 1, "b": 0})
        assert failed.is_error
        assert failed.content[0].text == "b must not be zero"


async def test_serve_stdio_answers_a_handshake_era_session() -> None:
    async with stdio_client(stdio_params(BASIC)) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.server_info.name == "basic"
        assert init.instructions == "Test server."
        result = await session.call_tool("shout", {"text": "hi"})
        assert result.structured_content == {"shout": "HI"}


@pytest.fixture
def http_server() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    with toolweave_served(BASIC, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as server:
        yield f"{server.url}/mcp", server.process


async def test_serve_http_answers_the_mcp_client(http_server: tuple[str, subprocess.Popen[str]]) -> None:
    url, _ = http_server
    async with mcp.Client(url) as client:
        listed = await client.list_tools()
        assert "calc_add" in [tool.name for tool in listed.tools]
        result = await client.call_tool("calc_add", {"a": 1, "b": 2})
        assert result.structured_content == {"result": 3}


async def test_serve_http_answers_a_handshake_era_session(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    url, _ = http_server
    async with (
        httpx2.AsyncClient() as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("whisper", {"text": "QUIET"})
        assert result.content[0].text == "quiet"


def test_serve_http_prints_the_url_and_a_client_snippet(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    url, process = http_server
    process.terminate()
    _, err = process.communicate(timeout=10)
    assert f"Serving 'basic' at {url}" in err
    snippet = err[err.index("{") : err.rindex("}") + 1]
    assert json.loads(snippet) == {"mcpServers": {"basic": {"url": url}}}
    assert "Traceback" not in err


def test_serve_http_on_a_busy_port_fails_before_printing_a_url() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*COMMAND, "serve", BASIC, "--transport", "http", "--port", str(port)],
            cwd=ROOT,
            env=subprocess_env(),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert done.returncode == 1
    assert f"error: cannot listen on 127.0.0.1:{port}: Address already in use" in done.stderr
    assert "Serving" not in done.stderr
    assert "Traceback" not in done.stderr
