"""`resources/subscribe` through a gateway to a handshake-era upstream."""

from __future__ import annotations

import logging
import sys
import warnings

import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.conftest import subprocess_env
from tests.server.test_remote import UPSTREAMS
from toolweave.server.remote import RemoteServer
from toolweave.testing import connect

from .conftest import gateway, sdk_upstream, through_gateway


async def subscribe(client: object, uri: str) -> None:
    with warnings.catch_warnings():  # the SDK's client marks resources/subscribe deprecated (2026)
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await client.subscribe_resource(uri)  # type: ignore[attr-defined]


async def test_a_subscription_to_an_upstream_without_subscriptions_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """The subscription was accepted and its client never heard of an update, without a word."""
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "ll_upstream.py")], env=subprocess_env())
    async with through_gateway(remote) as client:
        await subscribe(client, "note://up/index")
    said = [record.getMessage() for record in caplog.records if "updates" in record.getMessage()]
    assert said == ["[up] 'note://index' gets no updates: the upstream does not offer resource subscriptions"]


async def test_a_subscription_to_an_upstream_with_subscriptions_is_made_there_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    async with through_gateway(sdk_upstream()) as client:
        await subscribe(client, "data://up/counter")
        subscribed = (await client.call_tool("up_subscribed", {})).content[0].text
    assert subscribed == "data://counter"
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


async def test_the_last_unsubscribe_reaches_the_upstream_after_the_resource_was_hidden() -> None:
    """The unsubscribe looked the URI up again: hidden meanwhile (or gone from the upstream's
    list), it reached nobody, and the upstream kept the subscription for good."""
    server = gateway(sdk_upstream())
    async with connect(server, mode="legacy") as client:
        await subscribe(client, "data://up/counter")
        held = (await client.call_tool("up_subscribed", {})).content[0].text
        server.disable("data://up/counter")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.unsubscribe_resource("data://up/counter")
        left = (await client.call_tool("up_subscribed", {})).content[0].text
    assert (held, left) == ("data://counter", "")
