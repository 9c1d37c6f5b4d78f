"""The prompts-and-resources example, served over real stdio and real HTTP, read by the `mcp` client."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import mcp
import pytest
from mcp import StdioServerParameters

from tests.conftest import ROOT, subprocess_env
from tests.serving import PORT, spawned

EXAMPLE = ROOT / "examples" / "prompts_and_resources.py"


async def _exercise(client: Any) -> None:
    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["review", "billing_dunning"]
    review = await client.get_prompt("review", {"code": "x = 1", "strict": "true"})
    assert [m.role for m in review.messages] == ["user", "assistant"]
    assert "Be strict." in review.messages[0].content.text
    dunning = await client.get_prompt("billing_dunning", {"customer": "Ada", "days_overdue": "3"})
    assert "3 days overdue" in dunning.messages[0].content.text
    assert [r.uri for r in (await client.list_resources()).resources] == ["resource://faq"]
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == [
        "weather://{city}/{day}",
        "resource://billing/invoices/{number}",
    ]
    [invoice] = (await client.read_resource("resource://billing/invoices/7")).contents
    assert (invoice.uri, invoice.mime_type) == ("resource://billing/invoices/7", "application/json")
    assert '"number": 7' in invoice.text
    [forecast] = (await client.read_resource("weather://Lima/monday")).contents
    assert '"city": "Lima"' in forecast.text
    with pytest.raises(mcp.MCPError) as caught:
        await client.read_resource("resource://nope")
    assert caught.value.error.code == -32602


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_stdio(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(EXAMPLE)], env=subprocess_env())
    async with mcp.Client(params, mode=mode) as client:
        await _exercise(client)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with spawned(sys.executable, str(EXAMPLE), "http", PORT) as server:
        yield f"{server.url}/mcp"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_http(http_url: str, mode: str) -> None:
    async with mcp.Client(http_url, mode=mode) as client:
        await _exercise(client)
