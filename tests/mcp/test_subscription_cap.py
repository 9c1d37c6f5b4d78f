"""A client holds at most `MAX_SUBSCRIPTIONS` resource subscriptions at once, through the official
client in both eras: each is kept until unsubscribed, and without a cap one client subscribing to
URIs a template serves grew the server by ~100 MiB a second."""

from __future__ import annotations

import warnings
from typing import Any

import mcp.types as mt
import pytest
from mcp import MCPError
from mcp.shared.exceptions import MCPDeprecationWarning

from toolweave import Server
from toolweave.mcp.resource_updates import MAX_SUBSCRIPTIONS
from toolweave.testing import connect

URIS = [f"page://{number}" for number in range(MAX_SUBSCRIPTIONS + 1)]


def pages_server() -> Server:
    server = Server("pages")

    @server.resource("page://{number}")
    def page(number: int) -> str:
        return f"page {number}"

    return server


async def subscribing(client: Any, uri: str, *, subscribe: bool = True) -> None:
    with warnings.catch_warnings():  # the SDK's client marks resources/subscribe deprecated (2026)
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await (client.subscribe_resource if subscribe else client.unsubscribe_resource)(uri)


async def test_a_subscription_past_the_cap_is_refused_until_one_is_dropped() -> None:
    async with connect(pages_server(), mode="legacy") as client:
        for uri in URIS[:MAX_SUBSCRIPTIONS]:
            await subscribing(client, uri)
        await subscribing(client, URIS[0])  # one it holds already: fine
        with pytest.raises(MCPError) as refused:
            await subscribing(client, URIS[-1])
        await subscribing(client, URIS[0], subscribe=False)
        await subscribing(client, URIS[-1])
        served = await client.read_resource("page://7")
    assert refused.value.error.code == mt.INVALID_PARAMS
    assert f"already subscribed to {MAX_SUBSCRIPTIONS} URIs" in refused.value.error.message
    assert served.contents[0].text == "page 7"  # type: ignore[union-attr]


async def test_a_second_connection_has_a_cap_of_its_own() -> None:
    server = pages_server()
    async with connect(server, mode="legacy") as first, connect(server, mode="legacy") as second:
        for uri in URIS[:MAX_SUBSCRIPTIONS]:
            await subscribing(first, uri)
        await subscribing(second, URIS[-1])


async def test_a_2026_listen_naming_more_uris_than_the_cap_is_refused() -> None:
    async with connect(pages_server()) as client:
        with pytest.raises(MCPError) as refused:
            async with client.listen(resource_subscriptions=URIS):
                pass
        async with client.listen(resource_subscriptions=URIS[:MAX_SUBSCRIPTIONS]):
            pass
    assert refused.value.error.code == mt.INVALID_PARAMS and "MAX_SUBSCRIPTIONS" in refused.value.error.message
