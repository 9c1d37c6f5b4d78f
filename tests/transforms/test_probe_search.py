"""A client's regex runs on the server: patterns that backtrack for hours over ordinary tool
descriptions (`(.|.)*(.|.)*!`, `.*.*.*.*.*.*.*.*!`) used to hold the event loop, and so every client; now each
search is answered within a time budget, or refused saying the pattern is too costly."""

from __future__ import annotations

import pytest

from tests.transforms.catalog_fixture import catalog_server
from toolweave import Server
from toolweave.testing import connect
from toolweave.transforms.search import SearchTools


@pytest.mark.timeout(5)  # the old matcher ran each for seconds to hours (a search gets 50 ms now)
@pytest.mark.parametrize(
    "pattern", [".*.*.*.*.*.*.*.*!", r"(?:.|\s)*(?:.|\s)*!", r"[\s\S]*[\s\S]*[\s\S]*!", "(.|.)*(.|.)*!"]
)
async def test_a_backtracking_pattern_over_a_large_catalog_is_answered(pattern: str) -> None:
    server = catalog_server()
    server.add_transform(SearchTools(strategy="regex"))
    async with connect(server) as client:
        result = await client.call_tool("search_tools", {"query": pattern})
        still = await client.call_tool("search_tools", {"query": "^archive_invoice$"})
    assert not result.is_error
    assert result.structured_content == {"tools": []}
    assert [tool["name"] for tool in still.structured_content["tools"]] == ["archive_invoice"]


@pytest.mark.timeout(5)
async def test_a_pattern_past_the_time_budget_is_refused_saying_so() -> None:
    server = Server("s")
    server.add_tool(lambda: None, name="x" * 60 + "y")
    server.add_transform(SearchTools(strategy="regex"))
    async with connect(server) as client:
        result = await client.call_tool("search_tools", {"query": "(?:x?){60}x{60}z"})
    assert result.is_error
    assert result.content[0].text == (
        "the pattern '(?:x?){60}x{60}z' takes too long to match: give a simpler one"
    )
