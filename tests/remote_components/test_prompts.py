"""An upstream's prompts through a gateway: listed as the upstream describes them, rendered there."""

from __future__ import annotations

import mcp
import mcp.types as mt
import pytest

from .conftest import sdk_upstream, through_gateway


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_upstream_prompts_arguments_keep_their_titles(mode: str) -> None:
    """The arguments' titles (a name for people, which a client shows in its form) were dropped."""
    async with through_gateway(sdk_upstream(), mode=mode) as client:
        [ask] = (await client.list_prompts()).prompts
    assert (ask.name, ask.title) == ("up_ask", "Ask")
    assert [(arg.name, arg.title, arg.description, arg.required) for arg in ask.arguments or []] == [
        ("topic", "Topic", "What to ask about", True),
        ("tone", None, None, False),
    ]


async def test_a_missing_required_argument_is_refused_at_the_gateway_naming_it() -> None:
    async with through_gateway(sdk_upstream()) as client:
        with pytest.raises(mcp.MCPError) as refused:
            await client.get_prompt("up_ask", {"tone": "calm"})
    assert refused.value.error.code == mt.INVALID_PARAMS
    assert refused.value.error.message == "Invalid arguments for prompt 'up_ask':\n- topic: Field required"
