"""A real stdio subprocess, driven by the official `mcp` client in both protocol eras."""

from __future__ import annotations

import sys

import pytest
from mcp import Client, MCPError, StdioServerParameters

from tests.conftest import ROOT, subprocess_env

QUICKSTART = StdioServerParameters(
    command=sys.executable, args=[str(ROOT / "examples" / "quickstart.py")], env=subprocess_env()
)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_call_and_errors_over_stdio(mode: str) -> None:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with Client(QUICKSTART, mode=mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        converted = await client.call_tool("convert_temperature", {"value": 100, "unit": "C"})
        stats = await client.call_tool("text_stats", {"text": "two words"})
        rolled = await client.call_tool("roll_dice", {"count": 3}, progress_callback=on_progress)
        refused = await client.call_tool("roll_dice", {"count": 50})
        invalid = await client.call_tool("roll_dice", {"sides": 1})
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("nope", {})
    assert names == ["convert_temperature", "text_stats", "roll_dice"]
    assert converted.structured_content == {"result": 212.0}
    assert stats.structured_content == {"words": 2, "characters": 9, "lines": 1}
    assert len(rolled.structured_content["result"]) == 3 and progress == [1, 2, 3]
    assert refused.is_error and refused.content[0].text == "at most 20 dice at once"
    assert invalid.is_error and "sides: Input should be greater than or equal to 2" in invalid.content[0].text
    assert unknown.value.error.code == -32602
