"""A prompt or resource the gateway hides (`disable`) is not completed or subscribed to at its owner."""

from __future__ import annotations

import warnings

import mcp.types as mt
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from toolweave import Server
from toolweave.testing import connect

from .conftest import gateway, sdk_upstream


async def test_a_disabled_prompt_and_template_get_no_completion_from_the_upstream() -> None:
    """The gateway said "Unknown prompt" to a `prompts/get` of a disabled prompt, while
    `completion/complete` passed it on to its upstream, which answered."""
    server = gateway(sdk_upstream())
    server.disable("up_ask")
    server.disable("data://up/city/{city}/weather")
    prompt = mt.PromptReference(type="ref/prompt", name="up_ask")
    template = mt.ResourceTemplateReference(type="ref/resource", uri="data://up/city/{city}/weather")
    async with connect(server, mode="legacy") as client:
        hidden = [await client.complete(ref, {"name": "x", "value": "a"}) for ref in (prompt, template)]
        shown = await client.complete(
            mt.ResourceTemplateReference(type="ref/resource", uri="data://up/files/{name}"),
            {"name": "name", "value": "a"},
        )
    assert [result.completion.values for result in hidden] == [[], []]
    assert shown.completion.values == ["data://files/{name}:name=a None"]


async def test_a_subscription_to_a_disabled_resource_is_not_made_upstream() -> None:
    server = gateway(sdk_upstream())
    server.disable("data://up/counter")
    async with connect(server, mode="legacy") as client:
        with warnings.catch_warnings():  # the SDK's client marks resources/subscribe deprecated (2026)
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.subscribe_resource("data://up/counter")
            await client.subscribe_resource("data://up/files/notes")
        subscribed = (await client.call_tool("up_subscribed", {})).content[0].text
    assert subscribed == "data://files/notes"


def counter_template(server: Server, prefix: str | None) -> Server:
    """A local server (or `server` itself, `prefix` "self") serving `data://up/{name}`: in the
    gateway, a template that serves reads of `data://up/counter` once its static one is hidden."""
    owner = server if prefix == "self" else Server("pages")

    @owner.resource("data://up/{name}" if owner is server else "data://{name}")
    def page(name: str) -> str:
        return f"page {name}"

    if owner is not server:
        server.mount(owner, prefix=prefix)
    return server


async def read_and_subscribe(server: Server, uri: str) -> tuple[str, str]:
    """What a client reads at `uri` through `server`, and what the upstream says it is subscribed
    to once the client subscribed to `uri`."""
    async with connect(server, mode="legacy") as client:
        read = await client.read_resource(uri)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.subscribe_resource(uri)
        subscribed = (await client.call_tool("up_subscribed", {})).content[0].text  # type: ignore[union-attr]
    return read.contents[0].text, subscribed  # type: ignore[union-attr]


@pytest.mark.parametrize("where", ["self", "up"], ids=["gateway's own template", "another mount's template"])
async def test_a_subscription_follows_the_read_past_a_hidden_upstream_resource(where: str) -> None:
    """The gateway read `data://up/counter` from a template once its static upstream resource was
    disabled, and subscribed to that upstream resource all the same."""
    server = counter_template(gateway(sdk_upstream()), where)
    server.disable("data://up/counter")
    assert await read_and_subscribe(server, "data://up/counter") == ("page counter", "")


async def test_a_subscription_follows_the_read_past_a_hidden_local_resource_to_the_upstream() -> None:
    """With the hidden static resource in a server mounted before the remote, the subscription
    went to that server (and so nowhere), while reads came from the upstream's template."""
    notes = Server("notes")

    @notes.resource("data://files/notes")
    def hidden_notes() -> str:
        return "hidden"

    server = Server("gateway")
    server.mount(notes, prefix="up")
    server.mount(sdk_upstream(), prefix="up")
    server.disable("data://up/files/notes")
    read, subscribed = await read_and_subscribe(server, "data://up/files/notes")
    assert (read, subscribed) == ("read data://files/notes", "data://files/notes")
