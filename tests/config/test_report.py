"""What `list` and `explain` report: tools as clients see them, and how each tool was made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from toolweave import Server, Tool, UnknownTool
from toolweave.explain import explain_server
from toolweave.report import listing
from toolweave.testing import RecordingMiddleware, connect


def explain_tools(server: Server, name: str | None = None) -> list[dict[str, Any]]:
    """What `toolweave explain --json` prints for `server`."""
    return [item.to_dict() for item in explain_server(server, name).tools]


@dataclass(frozen=True)
class AddFlag:
    """A test transform that adds an optional `flag` argument to the schema."""

    def apply(self, tool: Tool) -> Tool:
        schema = dict(tool.input_schema)
        schema["properties"] = {**schema.get("properties", {}), "flag": {"type": "boolean"}}
        return tool.derive(self, input_schema=schema)

    def describe(self) -> str:
        return "adds flag"


def nested() -> Server:
    child = Server("child", middleware=[RecordingMiddleware("inner", tools="get*")])

    @child.tool(annotations={"readOnlyHint": True}, tags={"data"})
    def get(key: str) -> str:
        """Read a value."""
        return key

    @child.tool
    def put(key: str) -> str:
        """Write a value."""
        return key

    root = Server("root", middleware=[RecordingMiddleware("outer")])
    root.mount(child, prefix="kv")
    root.add_transform(AddFlag(), tools="kv_get")
    return root


def test_explain_follows_the_lineage_to_the_base_function() -> None:
    (item,) = explain_tools(nested(), "kv_get")
    assert item["origin"]["kind"] == "function"
    assert item["origin"]["name"].endswith("get")
    assert item["exposed_by"] == "mount 'kv' tool 'get' (server 'child')"


def test_explain_lists_transforms_in_order() -> None:
    (item,) = explain_tools(nested(), "kv_get")
    assert item["transforms"] == ["mounted from server 'child' with prefix 'kv'", "adds flag"]


def test_explain_lists_middleware_outermost_first_including_mounted_servers() -> None:
    explained = {item["name"]: item["middleware"] for item in explain_tools(nested())}
    assert explained["kv_get"] == ["outer", "inner (tools: names=['get*'])"]
    assert explained["kv_put"] == ["outer"]


def test_explain_shows_the_schema_before_and_after() -> None:
    (item,) = explain_tools(nested(), "kv_get")
    assert "flag" not in item["schema_before"]["properties"]
    assert item["schema_after"]["properties"]["flag"] == {"type": "boolean"}


def test_explain_an_unknown_tool_raises() -> None:
    with pytest.raises(UnknownTool):
        explain_tools(nested(), "nope")


async def test_listing_gives_the_wire_view_of_tools() -> None:
    data = await listing(nested())
    get = data["tools"][0]
    assert get["name"] == "kv_get"
    assert get["annotations"] == {"readOnlyHint": True}
    assert get["_meta"] == {"io.toolweave/tags": ["data"]}
    assert [tool["name"] for tool in data["tools"]] == ["kv_get", "kv_put"]


def everything() -> Server:
    """A tool with a wrapped output schema, a prompt with an optional argument, a resource and a template."""
    server = Server("all")

    @server.tool(tags={"math"})
    def double(n: int) -> int:
        """Twice n."""
        return 2 * n

    @server.prompt
    def review(code: str, strict: bool = False) -> str:
        """Review some code."""
        return f"Review {code} {strict}"

    @server.resource("resource://motd", mime_type="text/plain")
    def motd() -> str:
        """The message of the day."""
        return "hello"

    @server.resource("weather://{city}/now")
    def weather(city: str) -> str:
        """The weather now."""
        return city

    return server


async def test_listing_is_what_the_lists_send_on_the_wire() -> None:
    """`list --json` had `resource_templates` with `uri`, prompt arguments as bare names, and no
    `x-fastmcp-wrap-result` in a wrapped output schema."""
    server = everything()
    async with connect(server) as client:
        sent = {
            "tools": (await client.list_tools()).tools,
            "prompts": (await client.list_prompts()).prompts,
            "resources": (await client.list_resources()).resources,
            "resourceTemplates": (await client.list_resource_templates()).resource_templates,
        }
    wire = {
        key: [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in items]
        for key, items in sent.items()
    }
    listed = await listing(server)
    assert listed == wire
    assert listed["tools"][0]["outputSchema"]["x-fastmcp-wrap-result"] is True
    assert listed["prompts"][0]["arguments"] == [
        {"name": "code", "required": True},
        {"name": "strict", "required": False},
    ]
    assert listed["resourceTemplates"][0]["uriTemplate"] == "weather://{city}/now"


async def test_listing_includes_prompts_and_resources() -> None:
    server = Server("p")

    @server.prompt
    def review(code: str) -> str:
        """Review some code."""
        return f"Review: {code}"

    @server.resource("resource://motd")
    def motd() -> str:
        """The message of the day."""
        return "hello"

    data = await listing(server)
    assert [item["name"] for item in data["prompts"]] == ["review"]
    assert [item["uri"] for item in data["resources"]] == ["resource://motd"]
