"""`completion/complete` and resource subscriptions through the official client, in both eras."""

from __future__ import annotations

import logging
import warnings
from typing import Any

import anyio
import mcp.types as mt
import pytest
from mcp.client.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPDeprecationWarning

from toolweave import CompletionRequest, Server
from toolweave.server.completion import MAX_VALUES, complete
from toolweave.testing import connect

MODES = ["auto", "legacy"]
CITIES = ("Paris", "Parma", "Lima")


def travel_server() -> Server:
    server = Server("travel")

    @server.prompt
    def trip(city: str, days: str = "3") -> str:
        """Plan a trip."""
        return f"Plan {days} days in {city}."

    @server.resource("weather://{city}/today")
    def weather(city: str) -> str:
        return f"sunny in {city}"

    @server.resource("notes://today")
    def notes() -> str:
        return "nothing yet"

    return server


@pytest.mark.parametrize("mode", MODES)
async def test_completion_without_a_completer_suggests_nothing(mode: str) -> None:
    async with connect(travel_server(), mode=mode) as client:
        assert client.server_capabilities.completions is not None
        ref = mt.PromptReference(type="ref/prompt", name="trip")
        result = await client.complete(ref, {"name": "city", "value": "P"})
    assert result.completion.values == [] and result.completion.total == 0


@pytest.mark.parametrize("mode", MODES)
async def test_the_completer_gets_the_reference_argument_and_resolved_arguments(mode: str) -> None:
    server = travel_server()
    seen: list[CompletionRequest] = []

    @server.completion
    async def cities(request: CompletionRequest) -> list[str]:
        seen.append(request)
        return [city for city in CITIES if city.startswith(request.value)]

    ref = mt.ResourceTemplateReference(type="ref/resource", uri="weather://{city}/today")
    async with connect(server, mode=mode) as client:
        result = await client.complete(ref, {"name": "city", "value": "Par"}, {"unit": "C"})
    assert result.completion.values == ["Paris", "Parma"] and result.completion.has_more is False
    assert seen == [CompletionRequest("resource", "weather://{city}/today", "city", "Par", {"unit": "C"})]


async def test_more_than_a_hundred_values_are_cut_and_flagged() -> None:
    def many(request: CompletionRequest) -> list[str]:
        return [f"v{index}" for index in range(150)]

    found = await complete(many, CompletionRequest("prompt", "trip", "city", ""))
    assert len(found.values) == MAX_VALUES and found.total == 150 and found.has_more is True


async def test_handshake_subscribers_hear_about_updates_to_their_uri_only() -> None:
    server = travel_server()
    updated: list[str] = []
    got_one = anyio.Event()

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            updated.append(message.params.uri)
            got_one.set()

    async with connect(server, mode="legacy", message_handler=on_message) as client:
        assert client.server_capabilities.resources.subscribe is True
        with warnings.catch_warnings():  # the SDK's client marks resources/subscribe deprecated (2026)
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.subscribe_resource("notes://today")
        server.resource_updated("weather://Lima/today")  # not subscribed: not sent
        server.resource_updated("notes://today")
        with anyio.fail_after(5):
            await got_one.wait()
    assert updated == ["notes://today"]


async def test_unsubscribed_clients_hear_nothing_more() -> None:
    server = travel_server()
    updated: list[str] = []
    got_one = anyio.Event()

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            updated.append(message.params.uri)
            got_one.set()

    async with connect(server, mode="legacy", message_handler=on_message) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.subscribe_resource("notes://today")
            await client.unsubscribe_resource("notes://today")
            await client.subscribe_resource("weather://Lima/today")
        server.resource_updated("notes://today")  # updates are delivered in order: this one first
        server.resource_updated("weather://Lima/today")
        with anyio.fail_after(5):
            await got_one.wait()
    assert updated == ["weather://Lima/today"]


async def test_2026_listeners_hear_about_the_uris_they_named() -> None:
    server = travel_server()
    async with connect(server) as client, client.listen(resource_subscriptions=["notes://today"]) as events:
        server.resource_updated("weather://Lima/today")
        server.resource_updated("notes://today")
        with anyio.fail_after(5):
            async for event in events:
                assert event == ResourceUpdated(uri="notes://today")
                break


async def test_an_update_of_a_uri_the_server_does_not_serve_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    # (the usual slip: a mounted server's code telling the gateway about its own, unprefixed URI)
    child = travel_server()
    gateway = Server("gateway")
    gateway.mount(child, prefix="trip")
    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        gateway.resource_updated("notes://today")
        child.resource_updated("notes://today")  # the child serves it: said nothing
        gateway.resource_updated("notes://trip/today")  # the gateway's name for it
    said = [record.getMessage() for record in caplog.records]
    assert said == [
        "server 'gateway': resource_updated('notes://today') reaches no client: the server serves no resource "
        "there (code of a mounted server tells its own server: child.resource_updated(...))"
    ]
