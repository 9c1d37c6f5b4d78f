"""An upstream that fails one of its lists: the gateway serves the others, and says which failed."""

from __future__ import annotations

import logging

import mcp.types as mt
import pytest

from .conftest import sdk_upstream, through_gateway


async def test_resources_list_failing_leaves_the_templates_listed_and_readable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The upstream's templates were dropped with its failing `resources/list` (both were one
    listing), so none of its resources could be read."""
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    async with through_gateway(sdk_upstream("failing-resources")) as client:
        resources = (await client.list_resources()).resources
        templates = [template.uri_template for template in (await client.list_resource_templates()).resource_templates]
        [read] = (await client.read_resource("data://up/files/notes")).contents
        tools = [tool.name for tool in (await client.list_tools()).tools]
    assert (resources, templates) == ([], ["data://up/files/{name}", "data://up/city/{city}/weather"])
    assert isinstance(read, mt.TextResourceContents) and read.text == "read data://files/notes"
    assert tools == ["up_subscribed", "up_bump", "up_pid"]
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert warnings == ["[up] could not list the upstream's resources: MCPError: the resource index is down"]


async def test_templates_list_failing_leaves_the_resources_listed_and_readable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    async with through_gateway(sdk_upstream("failing-templates")) as client:
        resources = [resource.uri for resource in (await client.list_resources()).resources]
        templates = (await client.list_resource_templates()).resource_templates
        [read] = (await client.read_resource("data://up/counter")).contents
    assert (resources, templates) == (["data://up/items?limit=5", "data://up/counter"], [])
    assert isinstance(read, mt.TextResourceContents) and read.text == "read data://counter"
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert warnings == ["[up] could not list the upstream's resource templates: MCPError: the template index is down"]
