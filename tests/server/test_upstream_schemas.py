"""An MCP upstream's tool whose schema JSON Schema cannot apply, as the gateway lists and calls it.

The tool was listed, and every call of it was `Internal error (incident ...)` (the argument or
result check crashed on the schema): a tool with such an input schema is left out with one
warning saying where the schema is wrong; such an output schema is dropped with one warning, the
tool's results passing as they come.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.server.remote import RemoteServer
from toolweave.testing import connect

UPSTREAMS = Path(__file__).parent / "upstreams"
BROKEN_AT = {
    "in_file": "properties.f.type is 'file'",
    "in_required_true": "properties.f.required is True",
    "in_string_bound": "properties.f.maxLength is '10'",
    "in_bad_pattern": "properties.f.pattern is '(unclosed'",
    "in_items_list": "properties.f.items is [{'type': 'string'}]",
    "in_dangling_ref": "properties.f.$ref is '#/$defs/Missing'",
    "in_type_int": "properties.f.type is 'int'",
}


@pytest.fixture
def gateway() -> Server:
    remote = RemoteServer.stdio(
        sys.executable, [str(UPSTREAMS / "broken_schema_upstream.py")], env=subprocess_env(), name="bs"
    )
    server = Server("gateway")
    server.mount(remote, prefix="up")
    return server


async def test_a_tool_whose_input_schema_cannot_be_applied_is_left_out_with_a_warning_saying_where(
    gateway: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "toolweave.upstream")
    async with connect(gateway) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        fine = await client.call_tool("up_fine", {"f": "x"})
    assert listed == {"up_fine", "up_out_broken", "up_draft7_point"}
    assert not fine.is_error and fine.structured_content == {"ok": "fine"}
    for name, where in BROKEN_AT.items():
        said = [r.getMessage() for r in caplog.records if f"tool {name!r}" in r.getMessage()]
        assert len(said) == 1, said
        assert said[0].startswith(f"[bs] skipping upstream tool {name!r}: its inputSchema cannot be applied: {where}")


async def test_an_output_schema_that_cannot_be_applied_is_dropped_and_results_pass(
    gateway: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "toolweave.upstream")
    async with connect(gateway) as client:
        tool = next(tool for tool in (await client.list_tools()).tools if tool.name == "up_out_broken")
        result = await client.call_tool("up_out_broken", {})
    assert tool.output_schema is None
    assert not result.is_error, result.content
    assert result.structured_content == {"ok": "out_broken"}
    said = [r.getMessage() for r in caplog.records if "'out_broken'" in r.getMessage()]
    assert said == [
        "[bs] upstream tool 'out_broken' is served without its outputSchema, which cannot be applied: "
        "properties.ok.maxLength is '10': a whole number, 0 or more"
    ]


async def test_a_schema_naming_draft_07_is_applied_as_draft_07(gateway: Server) -> None:
    """A TypeScript server's tuple (`items` as a list, right in draft-07): every call of the tool
    was an internal error, the schema read as 2020-12."""
    async with connect(gateway) as client:
        called = await client.call_tool("up_draft7_point", {"point": [1, 2.5]})
        refused = await client.call_tool("up_draft7_point", {"point": ["north", 2]})
    assert not called.is_error and called.structured_content == {"ok": "draft7_point"}
    assert refused.is_error
    assert refused.content[0].text == "Invalid arguments for tool 'up_draft7_point':\n- point.0: expected number"  # type: ignore[union-attr]
