"""Templates with RFC 6570 operators listed by real upstreams (the `mcp` SDK's own `MCPServer` and
FastMCP, over stdio), mounted under `up`: listed with the prefix, read with the upstream's own URI
(query string included), completed by the upstream; one toolweave cannot serve is skipped with a
warning naming it."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import mcp.types as mt
import pytest

from tests.conftest import ROOT, subprocess_env
from tests.optional import require
from toolweave.server.remote import RemoteServer

from .conftest import through_gateway

SCRIPT = ROOT / "tests" / "servers" / "rfc6570_upstream.py"


def upstream(*modes: str) -> RemoteServer:
    """`tests/servers/rfc6570_upstream.py` as a stdio upstream, in `modes`."""
    return RemoteServer.stdio(sys.executable, [str(SCRIPT), *modes], env=subprocess_env())


async def read_json(client: Any, uri: str) -> Any:
    [contents] = (await client.read_resource(uri)).contents
    assert isinstance(contents, mt.TextResourceContents) and contents.uri == uri
    return json.loads(contents.text)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_sdk_upstreams_operator_templates_are_listed_and_read_with_its_own_uris(mode: str) -> None:
    async with through_gateway(upstream(), mode=mode) as client:
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        assert sorted(templates) == ["file://up//{+path}", "search://up/items{?q,limit}"]
        assert await read_json(client, "file://up//docs/2024/a.md") == {"path": "docs/2024/a.md"}
        assert await read_json(client, "search://up/items?limit=3&q=red%20car") == {"q": "red car", "limit": 3}
        assert await read_json(client, "search://up/items") == {"q": "", "limit": 10}


@pytest.mark.parametrize(
    ("template", "argument", "asked"),
    [
        ("file://up//{+path}", "path", "file:///{+path}"),
        ("search://up/items{?q,limit}", "q", "search://items{?q,limit}"),
    ],
)
async def test_the_sdk_upstream_completes_an_operator_parameter_under_its_own_template(
    template: str, argument: str, asked: str
) -> None:
    ref = mt.ResourceTemplateReference(type="ref/resource", uri=template)
    async with through_gateway(upstream()) as client:
        result = await client.complete(ref, {"name": argument, "value": "re"})
    assert result.completion.values == [f"{asked}:{argument}=re"]


async def test_a_fastmcp_upstreams_query_template_is_read_and_its_wildcard_skipped_by_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    require("fastmcp", "the fastmcp interop peer is not installed")
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    async with through_gateway(upstream("fastmcp")) as client:
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        found = await read_json(client, "search://up/items?q=lamp&limit=2")
    assert templates == ["search://up/items{?q,limit}"]
    assert found == {"q": "lamp", "limit": 2}
    skipped = [record.getMessage() for record in caplog.records if "skipping" in record.getMessage()]
    assert len(skipped) == 1 and "'files://{path*}': {path*} is not supported" in skipped[0]
