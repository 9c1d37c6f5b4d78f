"""A catalog transform's own tool named like a catalog tool it hides is a clash, not a silent shadow.

`SearchTools()` over a server with its own `call_tool` listed `['search_tools', 'call_tool']`
without a word, and a model calling `call_tool` reached the front instead of the server's tool.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from toolweave import DuplicateError, PromptsAsTools, Server
from toolweave.testing import connect
from toolweave.transforms import Rename
from toolweave.transforms.search import SearchTools


def with_own_call_tool(on_duplicate: str = "error") -> Server:
    server = Server("s", on_duplicate=on_duplicate)  # type: ignore[arg-type]

    @server.tool
    def call_tool(name: str) -> str:
        """Ring a phone number."""
        return f"rang {name}"

    @server.tool
    def lookup(number: str) -> str:
        """Look a phone number up."""
        return number

    return server


def test_a_front_tool_named_like_a_hidden_catalog_tool_is_refused_naming_both() -> None:
    server = with_own_call_tool()
    server.add_transform(SearchTools())
    with pytest.raises(DuplicateError) as refused:
        server.catalog  # noqa: B018
    assert str(refused.value) == (
        "server 's': tool name 'call_tool' is claimed twice: by local tool 'call_tool' and by SearchTools(bm25), "
        "which exposes a tool of its own under that name; rename one of them (the server's with a `Rename` "
        "transform, or the transform's with its name option, e.g. `SearchTools(call_tool=...)`)"
    )


@pytest.mark.parametrize(
    "rename",
    [
        lambda server: server.add_transform(SearchTools(call_tool="call_hidden_tool")),
        lambda server: (server.add_transform(Rename("dial"), tools="call_tool"), server.add_transform(SearchTools())),
    ],
    ids=["the front's tool", "the server's tool"],
)
async def test_renaming_either_tool_exposes_both(rename: Callable[[Server], object]) -> None:
    server = with_own_call_tool()
    rename(server)
    async with connect(server) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        front_call = listed[-1]
        own_name = "dial" if front_call == "call_tool" else "call_tool"
        result = await client.call_tool(front_call, {"name": own_name, "arguments": {"name": "555"}})
    assert listed == ["search_tools", front_call]
    assert result.content[0].text == "rang 555"


async def test_under_replace_the_front_tool_wins_and_the_server_tool_stays_reachable_behind_it() -> None:
    server = with_own_call_tool("replace")
    server.add_transform(SearchTools())
    async with connect(server) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("call_tool", {"name": "call_tool", "arguments": {"name": "555"}})
    assert listed == ["search_tools", "call_tool"]
    assert result.content[0].text == "rang 555"


async def test_under_ignore_the_server_tool_keeps_its_name() -> None:
    server = with_own_call_tool("ignore")
    server.add_transform(SearchTools())
    async with connect(server) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("call_tool", {"name": "555"})
    assert listed == ["search_tools", "call_tool"]
    assert result.content[0].text == "rang 555"


def test_under_warn_the_clash_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    server = with_own_call_tool("warn")
    server.add_transform(SearchTools())
    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        names = [tool.name for tool in server.catalog.tools]
    assert names == ["search_tools", "call_tool"]
    assert "tool name 'call_tool' is claimed twice" in caplog.text


def test_a_prompt_tool_named_like_a_kept_catalog_tool_is_still_refused() -> None:
    server = Server("s")
    server.add_tool(lambda name: name, name="get_prompt")
    server.add_transform(PromptsAsTools())
    with pytest.raises(DuplicateError, match="PromptsAsTools exposes two tools named 'get_prompt'"):
        server.catalog  # noqa: B018
