"""A tool the server does not expose, or exposes to other callers only, is reachable through
`call_tool` by no spelling of its name, and is answered like a name no tool has."""

from __future__ import annotations

import pytest

from tests.front_tools.callers import as_caller, served
from toolweave import Authorize, SearchTools, Server
from toolweave.testing import connect

SPELLINGS = ["vault", "VAULT", " vault", "vault ", "vau\u200blt", "vault\n", "child_vault", "child.vault", "*"]


def child() -> Server:
    server = Server("child")
    server.add_tool(lambda: "the secret", name="vault")
    server.add_tool(lambda: "open", name="lobby")
    return server


def unknown(name: str) -> str:
    return f"no tool named {name!r} behind this server: find one with `search_tools` first"


@pytest.mark.parametrize("spelling", SPELLINGS)
async def test_a_disabled_tool_is_reachable_by_no_spelling(spelling: str) -> None:
    server = child()
    server.disable("vault")
    server.add_transform(SearchTools())
    async with connect(server) as client:
        result = await client.call_tool("call_tool", {"name": spelling})
    assert result.is_error and result.content[0].text == unknown(spelling)


@pytest.mark.parametrize("spelling", SPELLINGS)
async def test_a_mounted_servers_disabled_tool_is_reachable_by_no_spelling_through_the_parent(spelling: str) -> None:
    inner = child()
    inner.disable("vault")
    parent = Server("parent")
    parent.mount(inner, prefix="child")
    parent.add_transform(SearchTools())
    async with connect(parent) as client:
        result = await client.call_tool("call_tool", {"name": spelling})
        reached = await client.call_tool("call_tool", {"name": "child_lobby"})
    assert result.is_error and result.content[0].text == unknown(spelling)
    assert reached.content[0].text == "open"


async def test_a_forbidden_tool_is_answered_like_a_name_no_tool_has() -> None:
    server = child()
    server.add_transform(Authorize(scopes=["vault"]), tools="vault")
    server.add_transform(SearchTools())
    async with served(server) as url:
        async with as_caller(url, "guest") as client:
            refused = [await client.call_tool("call_tool", {"name": spelling}) for spelling in SPELLINGS]
        async with as_caller(url, "vault") as client:
            allowed = await client.call_tool("call_tool", {"name": "vault"})
    assert [result.content[0].text for result in refused] == [unknown(spelling) for spelling in SPELLINGS]
    assert allowed.content[0].text == "the secret"
