"""Leaks: an exception raised anywhere a call goes (a tool, a transform's factory, a middleware, a
result mapping, a remote upstream) shows the client nothing of it — not its message, type name,
path or traceback — and the server logs its traceback once under the incident id the client got."""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import anyio
import pytest

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.middleware import middleware
from toolweave.server.remote import RemoteServer
from toolweave.testing import connect
from toolweave.transforms import Arg, MapResult, TransformArgs

from .exceptions import KINDS, leaked
from .raw import SERVERS

INCIDENT = re.compile(r"incident ([0-9a-f]{8})")


def raiser(kind: str) -> Any:
    def fail(*args: Any) -> Any:
        raise KINDS[kind]()

    return fail


def async_raiser(kind: str) -> Any:
    async def fail(call: Any, call_next: Any) -> Any:
        raise KINDS[kind]()

    return fail


def in_tool(kind: str) -> Server:
    server = Server("leaks")

    @server.tool
    def probe(city: str) -> str:
        raise KINDS[kind]()

    return server


def in_factory(kind: str) -> Server:
    server = Server("leaks")

    def probe(city: str, token: str) -> str:
        return city

    tool = server.add_tool(probe)
    server.remove_tool("probe")
    server.add_tool(tool.with_transforms(TransformArgs({"token": Arg(hide=True, default_factory=raiser(kind))})))
    return server


def in_middleware(kind: str) -> Server:
    server = Server("leaks", middleware=[middleware(async_raiser(kind))])
    server.add_tool(lambda city: city, name="probe")
    return server


def in_result_mapping(kind: str) -> Server:
    server = Server("leaks")
    tool = server.add_tool(lambda city: city, name="probe")
    server.remove_tool("probe")
    server.add_tool(tool.with_transforms(MapResult(raiser(kind))))
    return server


PLACES = {
    "tool": in_tool,
    "transform factory": in_factory,
    "middleware": in_middleware,
    "result mapping": in_result_mapping,
}


def client_text(result: Any) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content) + str(result.structured_content or "")


@pytest.mark.parametrize("place", list(PLACES))
async def test_no_exception_detail_reaches_the_client_and_each_is_logged_once(
    place: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    for kind in KINDS:
        caplog.clear()
        async with connect(PLACES[place](kind), mode="legacy") as client:
            result = await client.call_tool("probe", {"city": "Paris"})
        text = client_text(result)
        assert result.is_error and leaked(text, kind) == [], (kind, text)
        found = INCIDENT.search(text)
        assert found is not None, (kind, text)
        logged = [r for r in caplog.records if getattr(r, "incident", None) == found.group(1)]
        assert len(logged) == 1, (kind, [r.getMessage() for r in caplog.records])
        assert logged[0].exc_info is not None, kind


async def test_no_exception_detail_of_a_remote_upstream_reaches_the_client_and_each_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The upstream (a toolweave server) masks the failure and logs it under the incident id it
    # answers with; its stderr reaches the gateway's log (logger toolweave.upstream), line by line.
    caplog.set_level(logging.INFO, logger="toolweave.upstream")
    root = Server("gateway")
    root.mount(RemoteServer.stdio(sys.executable, [str(SERVERS / "thrower.py")], env=subprocess_env()), prefix="up")
    async with connect(root, mode="legacy") as client:
        for kind in KINDS:
            caplog.clear()
            result = await client.call_tool("up_boom", {"kind": kind})
            text = client_text(result)
            assert result.is_error and leaked(text, kind) == [], (kind, text)
            found = INCIDENT.search(text)
            assert found is not None, (kind, text)
            heading = f"[up] tool 'boom' failed (incident {found.group(1)})"
            with anyio.fail_after(5):
                while heading not in [r.getMessage() for r in caplog.records]:  # noqa: ASYNC110 - stderr relayed
                    await anyio.sleep(0.02)
            await anyio.sleep(0.1)  # (a second record would follow at once)
            assert [r.getMessage() for r in caplog.records].count(heading) == 1, kind
