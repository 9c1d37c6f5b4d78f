"""A prompt or resource the gateway hides (`disable`) is not completed or subscribed to at its owner."""

from __future__ import annotations

import warnings

import mcp.types as mt
from mcp.shared.exceptions import MCPDeprecationWarning

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
