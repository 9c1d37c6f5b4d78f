"""`completion/complete` through a gateway, answered by a bare SDK upstream mounted under `up`."""

from __future__ import annotations

import mcp.types as mt
import pytest

from .conftest import sdk_upstream, through_gateway

PROMPT = mt.PromptReference(type="ref/prompt", name="up_ask")
TEMPLATE = mt.ResourceTemplateReference(type="ref/resource", uri="data://up/city/{city}/weather")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("ref", "argument", "asked"),
    [
        (PROMPT, "topic", "ask:topic=ra {'tone': 'calm'}"),
        (TEMPLATE, "city", "data://city/{city}/weather:city=ra {'tone': 'calm'}"),
    ],
)
async def test_the_upstream_completes_in_its_own_names_with_the_other_arguments(
    mode: str, ref: mt.PromptReference | mt.ResourceTemplateReference, argument: str, asked: str
) -> None:
    async with through_gateway(sdk_upstream(), mode=mode) as client:
        result = await client.complete(ref, {"name": argument, "value": "ra"}, context_arguments={"tone": "calm"})
    assert (result.completion.values, result.completion.total) == ([asked], 1)


async def test_more_than_a_hundred_upstream_values_are_cut_and_said_to_have_more() -> None:
    """An upstream answering 150 values without a total was cut to 100 with `total` 100 and
    `hasMore` false: the client was told it had every value."""
    async with through_gateway(sdk_upstream()) as client:
        result = await client.complete(PROMPT, {"name": "topic", "value": "many"})
    completion = result.completion
    assert (len(completion.values), completion.values[-1], completion.total, completion.has_more) == (
        100,
        "v99",
        150,
        True,
    )
