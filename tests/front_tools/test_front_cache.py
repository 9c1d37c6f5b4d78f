"""A `Cache` never answers one caller with what a tool a catalog transform adds answered another
who may see more: a search, a list, a prompt or a resource behind an `Authorize` rule."""

from __future__ import annotations

import pytest

from tests.front_tools.callers import as_caller, served
from toolweave import Authorize, ResourcesAsTools, SearchTools, Server
from toolweave.middleware import Cache


def docs(*middleware: Cache) -> Server:
    """Salaries and payroll for `hr` only, behind `ResourcesAsTools` and `SearchTools`."""
    server = Server("docs", middleware=list(middleware))
    server.add_resource(lambda: "the salaries", "docs://salaries", name="salaries")
    server.add_tool(lambda: "paid", name="payroll", description="Run the payroll.")
    server.add_transform(Authorize(scopes=["hr"]), resources="docs://salaries")
    server.add_transform(Authorize(scopes=["hr"]), tools="payroll")
    server.add_transform(ResourcesAsTools())
    server.add_transform(SearchTools(always=["read_resource"]))
    return server


def gateway(mounted: bool, cache: Cache) -> tuple[Server, str]:
    """The server to serve and the prefix of the front tools' names on it."""
    if not mounted:
        return docs(cache), ""
    server = Server("gateway", middleware=[cache])
    server.mount(docs(), prefix="docs")
    return server, "docs_"


@pytest.mark.parametrize("mounted", [False, True], ids=["own", "mounted"])
async def test_a_shared_cache_keeps_what_hr_read_and_found_from_a_caller_without_hr(mounted: bool) -> None:
    """A mounted server's front tools were cached by the parent's `Cache(key="global")`: anyone read
    the salaries and saw `payroll` in a search after a caller with `hr` had."""
    cache = Cache(key="global")
    server, prefix = gateway(mounted, cache)
    read = (f"{prefix}read_resource", {"uri": "docs://salaries"})
    search = (f"{prefix}search_tools", {"query": "payroll"})
    async with served(server) as url:
        async with as_caller(url, "hr") as client:
            hr = [await client.call_tool(*request) for request in (read, search, search)]
        async with as_caller(url, "staff") as client:
            staff = [await client.call_tool(*request) for request in (read, search)]
    assert hr[0].content[0].text == "the salaries"
    assert [tool["name"] for tool in hr[1].structured_content["tools"]] == ["payroll"]
    assert staff[0].is_error and "the salaries" not in staff[0].content[0].text
    assert staff[1].structured_content == {"tools": []}
    assert hr[2].structured_content == hr[1].structured_content and cache.hits == 1  # a search is still cached


async def test_a_cache_of_every_tool_keeps_call_tool_out_and_caches_the_tool_it_reaches() -> None:
    """`Cache(only_safe=False)` wrapped `call_tool` when it did not wrap the tool reached: a read
    through `call_tool` was cached under `call_tool`'s arguments, past `read_resource`'s rules."""
    cache = Cache(key="global", only_safe=False)
    server = docs(cache)
    read = ("call_tool", {"name": "read_resource", "arguments": {"uri": "docs://salaries"}})
    payroll = ("call_tool", {"name": "payroll"})
    async with served(server) as url:
        async with as_caller(url, "hr") as client:
            hr = [await client.call_tool(*request) for request in (read, payroll, payroll)]
        async with as_caller(url, "staff") as client:
            staff = await client.call_tool(*read)
    assert hr[0].content[0].text == "the salaries"
    assert staff.is_error and "the salaries" not in staff.content[0].text
    assert [result.content[0].text for result in hr[1:]] == ["paid", "paid"] and cache.hits == 1  # payroll's own entry
