"""`SearchTools`: a 1,000-tool catalog behind a search tool and a call tool."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.transforms.catalog_fixture import QUERIES, catalog_server
from toolweave import Server
from toolweave.testing import RecordingMiddleware, connect
from toolweave.transforms.search import SearchTools


@pytest.fixture(scope="module")
def found() -> dict[str, list[str]]:
    """The names the BM25 search returns for each query, over 1,000 tools."""
    server = catalog_server()
    server.add_transform(SearchTools(max_results=3))

    async def search_all() -> dict[str, list[str]]:
        results = {}
        for query in QUERIES:
            result = await server.call_tool("search_tools", {"query": query})
            results[query] = [tool["name"] for tool in result.structured_content["tools"]]
        return results

    return anyio.run(search_all)


@pytest.mark.parametrize(("query", "wanted"), list(QUERIES.items()))
def test_the_right_tool_is_in_the_top_3(found: dict[str, list[str]], query: str, wanted: str) -> None:
    assert wanted in found[query]


async def test_only_the_search_call_and_always_tools_are_listed_at_any_catalog_size() -> None:
    small, large = catalog_server(records=1), catalog_server()
    for server in (small, large):
        server.add_transform(SearchTools(always=["get_invoice"]))
    async with connect(small) as client:
        small_list = (await client.list_tools()).tools
    async with connect(large) as client:
        large_list = (await client.list_tools()).tools
    assert len(catalog_server().catalog.tools) == 1000
    assert [t.name for t in large_list] == [t.name for t in small_list] == ["get_invoice", "search_tools", "call_tool"]
    assert "999 tools" in large_list[1].description  # all but the one listed
    assert large_list[0].input_schema == small_list[0].input_schema


async def test_search_returns_the_exposed_schemas() -> None:
    server = catalog_server()
    server.add_transform(SearchTools(max_results=1))
    async with connect(server) as client:
        result = await client.call_tool("search_tools", {"query": "clone a cooking recipe"})
    [tool] = result.structured_content["tools"]
    assert tool["name"] == "duplicate_recipe"
    assert tool["inputSchema"]["required"] == ["recipe_id"]
    assert tool["outputSchema"]["required"] == ["tool"]


async def test_a_call_through_the_call_tool_equals_a_direct_call() -> None:
    direct, fronted = catalog_server(records=2), catalog_server(records=2)
    fronted.add_transform(SearchTools())
    async with connect(direct) as client:
        expected = await client.call_tool("archive_invoice", {"invoice_id": "i-1"})
    async with connect(fronted) as client:
        through = await client.call_tool("call_tool", {"name": "archive_invoice", "arguments": {"invoice_id": "i-1"}})
    assert through.structured_content == expected.structured_content == {"tool": "archive_invoice", "invoice_id": "i-1"}
    assert through.content == expected.content


async def test_validation_and_middleware_apply_once_through_the_call_tool() -> None:
    recorder = RecordingMiddleware()
    server = catalog_server(records=1)
    server.add_middleware(recorder)
    server.add_transform(SearchTools())
    direct = catalog_server(records=1)
    bad: dict[str, Any] = {"invoice_id": 5, "extra": 1}
    async with connect(server) as client:
        ok = await client.call_tool("call_tool", {"name": "get_invoice", "arguments": {"invoice_id": "i-2"}})
        refused = await client.call_tool("call_tool", {"name": "get_invoice", "arguments": bad})
    async with connect(direct) as client:
        refused_directly = await client.call_tool("get_invoice", bad)
    assert not ok.is_error
    assert [call.tool.name for call in recorder.calls] == ["get_invoice"]
    assert refused.is_error and refused.content == refused_directly.content


async def test_unknown_names_and_the_front_tools_are_refused_through_the_call_tool_always_tools_reached() -> None:
    server = catalog_server(records=1)
    server.add_transform(SearchTools(always=["get_invoice"]))
    unknown = await server.call_tool("call_tool", {"name": "nope"})
    itself = await server.call_tool("call_tool", {"name": "call_tool"})
    searched = await server.call_tool("call_tool", {"name": "search_tools", "arguments": {"query": "x"}})
    listed = await server.call_tool("call_tool", {"name": "get_invoice", "arguments": {"invoice_id": "inv-0"}})
    direct = await server.call_tool("get_invoice", {"invoice_id": "inv-0"})
    assert unknown.text == "no tool named 'nope' behind this server: find one with `search_tools` first"
    assert itself.is_error and searched.is_error
    assert not listed.is_error and listed.content == direct.content  # an always-listed tool, either way


async def test_regex_strategy_puts_name_matches_first() -> None:
    server = catalog_server(records=3)
    server.add_transform(SearchTools(strategy="regex", max_results=4))
    result = await server.call_tool("search_tools", {"query": "^archive_"})
    assert [tool["name"] for tool in result.structured_content["tools"]] == [
        "archive_invoice",
        "archive_customer",
        "archive_order",
    ]
    broken = await server.call_tool("search_tools", {"query": "invoice ("})
    assert broken.structured_content == {"tools": []}


async def test_a_regex_shaped_to_backtrack_forever_is_searched_as_text() -> None:
    """A client's pattern runs on the server: `(a+)+$` over long names must not hang it."""
    server = Server("s")
    server.add_tool(lambda: None, name="a" * 60 + "b")
    server.add_transform(SearchTools(strategy="regex"))
    with anyio.fail_after(5):
        result = await server.call_tool("search_tools", {"query": "(a+)+$"})
    assert result.structured_content == {"tools": []}


async def test_a_mounted_search_fronted_server_exposes_its_front_tools() -> None:
    child = catalog_server(records=1)
    child.add_transform(SearchTools())
    gateway = Server("gateway")
    gateway.mount(child, prefix="crm")
    assert [tool.name for tool in gateway.catalog.tools] == ["crm_search_tools", "crm_call_tool"]
    result = await gateway.call_tool("crm_call_tool", {"name": "get_invoice", "arguments": {"invoice_id": "i"}})
    assert result.structured_content["tool"] == "get_invoice"


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="strategy must be 'bm25' or 'regex'"):
        SearchTools(strategy="fuzzy")  # type: ignore[arg-type]
    server = catalog_server(records=1)
    server.add_transform(SearchTools(always=["nope", "get_invoce"]))
    with pytest.raises(ValueError) as refused:
        server.catalog  # noqa: B018
    assert str(refused.value) == (
        "SearchTools always names tools the catalog does not expose: 'get_invoce' (did you mean 'get_invoice'?), 'nope'"
    )
    with pytest.raises(TypeError, match="applies to the whole catalog"):
        server.add_transform(SearchTools(), tools=["get_invoice"])


async def test_an_always_tool_disabled_after_it_was_listed_is_left_out_and_the_rest_serve(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = catalog_server(records=1)
    server.add_transform(SearchTools(always=["list_invoice"]))
    async with connect(server) as client:
        first = [tool.name for tool in (await client.list_tools()).tools]
        server.disable("list_invoice")
        listed = [tool.name for tool in (await client.list_tools()).tools]
        found = await client.call_tool("search_tools", {"query": "get invoice"})
        called = await client.call_tool("call_tool", {"name": "get_invoice", "arguments": {"invoice_id": "i"}})
        server.enable("list_invoice")
        back = [tool.name for tool in (await client.list_tools()).tools]
    assert first == ["list_invoice", "search_tools", "call_tool"] and listed == ["search_tools", "call_tool"]
    assert not found.is_error and not called.is_error
    assert back == ["list_invoice", "search_tools", "call_tool"]
    assert "always names tools the catalog does not expose: 'list_invoice'" in caplog.text


async def test_search_and_call_respect_each_callers_access() -> None:
    """A caller finds and calls only the tools `Authorize` lets it use; the rest do not exist for it."""
    from toolweave import AuthInfo, Context
    from toolweave.transforms import Authorize

    server = catalog_server(records=2)
    server.add_transform(Authorize("billing"), tools="*_invoice")
    server.add_transform(SearchTools(max_results=3))
    billing = Context(auth=AuthInfo(subject="b", scopes=("billing",)))
    other = Context(auth=AuthInfo(subject="o", scopes=()))
    query = {"query": "move an old billing invoice out of the active list"}
    seen_by_billing = await server.call_tool("search_tools", query, ctx=billing)
    seen_by_other = await server.call_tool("search_tools", query, ctx=other)
    assert seen_by_billing.structured_content["tools"][0]["name"] == "archive_invoice"
    assert all("invoice" not in tool["name"] for tool in seen_by_other.structured_content["tools"])
    assert len(seen_by_other.structured_content["tools"]) == 3
    call = {"name": "archive_invoice", "arguments": {"invoice_id": "i"}}
    allowed = await server.call_tool("call_tool", call, ctx=billing)
    refused = await server.call_tool("call_tool", call, ctx=Context(auth=AuthInfo(subject="o", scopes=())))
    assert not allowed.is_error
    assert refused.text == "no tool named 'archive_invoice' behind this server: find one with `search_tools` first"


async def test_an_authorize_rule_that_selects_the_call_tool_gates_it() -> None:
    """Searching may be open while calling is not: a rule on `call_tool` (or on every tool) holds
    for the tool `SearchTools` adds, as for any other (it was dropped: anyone called anything)."""
    from toolweave import AuthInfo, Context, UnknownTool
    from toolweave.transforms import Authorize

    server = catalog_server(records=2)
    server.add_transform(SearchTools())
    server.add_transform(Authorize("tools:call"), tools="call_tool")
    caller, reader = (
        Context(auth=AuthInfo(subject=s, scopes=scopes)) for s, scopes in (("c", ("tools:call",)), ("r", ()))
    )
    call = {"name": "archive_invoice", "arguments": {"invoice_id": "i"}}
    assert [tool.name for tool in await server.list_tools(reader)] == ["search_tools"]
    with pytest.raises(UnknownTool):
        await server.call_tool("call_tool", call, ctx=reader)
    assert not (await server.call_tool("call_tool", call, ctx=caller)).is_error


@pytest.mark.parametrize("strategy", ["bm25", "regex"])
async def test_a_search_asks_each_access_rule_once_not_once_per_tool_found(strategy: str) -> None:
    """With gated tools behind it, a search checks the caller against each distinct rule once and
    stops at `max_results`: it ranked or scanned every match and checked the rule per tool (a
    regex search over 10,000 tools took 80 ms instead of 0.1 ms, blocking the server)."""
    from toolweave import AuthInfo, Context
    from toolweave.transforms import Authorize

    checked: list[str | None] = []

    def staff(auth: AuthInfo) -> bool:
        checked.append(auth.subject)
        return True

    server = catalog_server()
    server.add_transform(Authorize(when=staff), tools="*_invoice")
    server.add_transform(SearchTools(strategy=strategy, max_results=3))
    found = await server.call_tool("search_tools", {"query": "invoice"}, ctx=Context(auth=AuthInfo(subject="ada")))
    assert [tool["name"].endswith("_invoice") for tool in found.structured_content["tools"]] == [True] * 3
    assert checked == ["ada"]


async def test_the_search_tool_counts_no_tools_a_caller_may_not_see() -> None:
    """With `Authorize` on some tools, the search tool's description gives no count: each caller
    sees the same description, and a total would tell it of the tools it may not use."""
    from toolweave import AuthInfo, Context
    from toolweave.transforms import Authorize

    server = catalog_server(records=2)
    server.add_transform(Authorize("billing"), tools="*_invoice")
    server.add_transform(SearchTools())
    [search, _] = await server.list_tools(Context(auth=AuthInfo(subject="o", scopes=())))
    assert search.description is not None and search.description.startswith("Search the tools of this server")
