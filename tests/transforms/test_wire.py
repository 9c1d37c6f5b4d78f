"""Transformed tools through the official mcp client, both protocol eras."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Server, Tool
from toolweave.testing import connect
from toolweave.transforms import Annotate, Arg, InjectArgs, MaskErrors, Rename, TransformArgs

MODES = ["auto", "legacy"]


def gateway(seen: list[dict[str, Any]]) -> Server:
    async def search(q: str, limit: int, api_key: str, debug: bool = False) -> dict[str, Any]:
        seen.append({"q": q, "limit": limit, "api_key": api_key, "debug": debug})
        if q == "crash":
            raise RuntimeError("secret internal detail")
        return {"hits": [q] * limit}

    server = Server("gw")
    server.add_tool(
        Tool.from_function(search).with_transforms(
            Rename("find_docs", description="Find documents."),
            TransformArgs({"q": Arg(name="query", description="terms"), "limit": Arg(name="max", default=2)}),
            TransformArgs({"debug": Arg(hide=True, default=True)}),
            InjectArgs(api_key="server-key"),
            MaskErrors(),
            Annotate(read_only=True),
        )
    )
    return server


@pytest.mark.parametrize("mode", MODES)
async def test_clients_see_only_the_exposed_shape(mode: str) -> None:
    async with connect(gateway([]), mode=mode) as client:
        listed = await client.list_tools()
    tool = listed.tools[0]
    assert tool.name == "find_docs" and tool.description == "Find documents."
    assert list(tool.input_schema["properties"]) == ["query", "max"]
    assert tool.annotations.read_only_hint is True
    assert "api_key" not in str(tool.input_schema) and "debug" not in str(tool.input_schema)


@pytest.mark.parametrize("mode", MODES)
async def test_calls_are_mapped_and_injected(mode: str) -> None:
    seen: list[dict[str, Any]] = []
    async with connect(gateway(seen), mode=mode) as client:
        result = await client.call_tool("find_docs", {"query": "cats"})
    assert result.is_error is False and result.structured_content == {"hits": ["cats", "cats"]}
    assert seen == [{"q": "cats", "limit": 2, "api_key": "server-key", "debug": True}]


@pytest.mark.parametrize("mode", MODES)
async def test_spoofed_hidden_argument_is_refused(mode: str) -> None:
    seen: list[dict[str, Any]] = []
    async with connect(gateway(seen), mode=mode) as client:
        result = await client.call_tool("find_docs", {"query": "x", "API_KEY": "mine"})
    assert result.is_error is True and "API_KEY: unexpected argument" in result.content[0].text
    assert seen == []


@pytest.mark.parametrize("mode", MODES)
async def test_masked_errors_reach_the_client_masked(mode: str) -> None:
    async with connect(gateway([]), mode=mode) as client:
        result = await client.call_tool("find_docs", {"query": "crash"})
    text = result.content[0].text
    assert result.is_error is True and text.startswith("Error calling tool 'find_docs' (incident ")
    assert "secret" not in text and "RuntimeError" not in text
