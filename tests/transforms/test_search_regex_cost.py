"""A client's regex is compiled and run on the server: whatever the query, a search stays cheap.

A huge count (`x{4294967294}` once made the process allocate 24 GB while compiling, before the
match budget started) or counts that multiply through nested groups are searched as text; a
pattern matching everywhere (`''`, `^`) lists the first tools instead of running out of time.
"""

from __future__ import annotations

import time

import anyio
import pytest

from toolweave import Server
from toolweave.testing import connect
from toolweave.transforms.search import SearchTools


def regex_server(descriptions: dict[str, str], max_results: int = 5) -> Server:
    server = Server("s")
    for name, description in descriptions.items():
        server.add_tool(lambda: None, name=name, description=description)
    server.add_transform(SearchTools(strategy="regex", max_results=max_results))
    return server


async def found(server: Server, query: str) -> list[str]:
    async with connect(server) as client:
        result = await client.call_tool("search_tools", {"query": query})
    assert not result.is_error, result.content
    return [tool["name"] for tool in result.structured_content["tools"]]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("query", ["x{2000000}", "x{101,}", "x{1,2000}", "((x{100})){100}", "((x{9})|y){9}"])
async def test_a_large_or_multiplying_count_is_searched_as_text(query: str) -> None:
    """Compiling `x{2000000}` held the event loop ~0.8 s (and a larger count, gigabytes)."""
    server = regex_server({"literal": f"Mentions {query} as written.", "many_x": "x" * 300})
    started = time.monotonic()
    assert await found(server, query) == ["literal"]
    assert time.monotonic() - started < 2


async def test_a_small_count_is_still_a_pattern() -> None:
    server = regex_server({"three": "Has xxx in it.", "two": "Has xx in it.", "literal": "Says x{3}."})
    assert await found(server, "x{3}") == ["three"]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("query", ["", "^", "x*", "(?=)"])
async def test_a_pattern_matching_everywhere_lists_the_first_tools(query: str) -> None:
    """Matching at every character of 600 long descriptions ran out of the time budget."""
    words = "padding text " * 20
    server = regex_server({f"tool_{i}": f"Does thing {i} for the widget service. {words}" for i in range(600)}, 1000)
    with anyio.fail_after(5):
        names = await found(server, query)
    assert names == [f"tool_{i}" for i in range(600)]
    assert await found(server, query) == names  # the same answer every time
