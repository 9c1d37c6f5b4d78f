"""An upstream's own error answering a read or a prompt fails that request, not the upstream."""

from __future__ import annotations

import logging

import mcp
import mcp.types as mt
import pytest

from .conftest import sdk_upstream, through_gateway


async def test_an_upstreams_own_minus_32000_fails_the_read_and_keeps_the_session(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """-32000 is also the SDK's "connection closed": the gateway took the upstream's answer for a
    lost connection, said it "went away", dropped the session and started the upstream again, so
    every request failed until it was back."""
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    async with through_gateway(sdk_upstream()) as client:
        before = (await client.call_tool("up_pid", {})).content[0].text
        with pytest.raises(mcp.MCPError) as refused:
            await client.read_resource("data://up/files/denied")
        [read] = (await client.read_resource("data://up/files/notes")).contents
        prompt = await client.get_prompt("up_ask", {"topic": "tides"})
        after = (await client.call_tool("up_pid", {})).content[0].text
    assert refused.value.error.code == mt.INTERNAL_ERROR
    assert refused.value.error.message.startswith("Error reading resource 'data://up/files/denied' (incident ")
    assert isinstance(read, mt.TextResourceContents) and read.text == "read data://files/notes"
    assert prompt.messages[0].content.text == "Tell me about tides"
    assert after == before
    assert not [
        record for record in caplog.records if "failed" in record.getMessage() and "[up]" in record.getMessage()
    ]
