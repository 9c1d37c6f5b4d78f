"""Resource URIs inside a mounted server's results (links, embedded resources) are the parent's."""

from __future__ import annotations

import base64

import mcp
import pytest

from toolweave import Server, ToolResult
from toolweave.core.content import (
    BlobResourceContents,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from toolweave.core.message import Message
from toolweave.core.resource import ResourceResult
from toolweave.server.links import Links
from toolweave.server.uri_prefix import UriPrefix
from toolweave.testing import connect

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])
BLOB = base64.b64encode(b"\x00\x01").decode()


def demo() -> Server:
    """A child whose tool and prompt point at its own resources (and at the web)."""
    child = Server("demo")

    @child.resource("demo://resource/static")
    def static() -> str:
        return "static text"

    @child.resource("demo://resource/dynamic/blob/{index}", mime_type="application/octet-stream")
    def blob(index: int) -> bytes:
        return bytes([index])

    @child.resource("file:///etc/app/config.yaml")
    def config() -> str:
        return "debug: true"

    @child.tool
    def links() -> ToolResult:
        return ToolResult(
            [
                TextContent("here:"),
                ResourceLink("demo://resource/dynamic/blob/1", "blob 1"),
                ResourceLink("https://example.com/page", "the web"),
                EmbeddedResource(TextResourceContents("demo://resource/static", "static text", "text/plain")),
                EmbeddedResource(BlobResourceContents("file:///etc/app/config.yaml", BLOB)),
            ],
            structured_content={"uri": "demo://resource/static"},
        )

    @child.tool
    def plain() -> str:
        return "no links"

    @child.prompt
    def resource_prompt() -> list[Message]:
        embedded = EmbeddedResource(TextResourceContents("demo://resource/static", "static text"))
        return [
            Message("Look at this:"),
            Message(embedded),
            Message(ResourceLink("demo://resource/dynamic/blob/2", "b")),
        ]

    return child


@MODES
async def test_links_in_a_mounted_tool_result_are_readable_through_the_parent(mode: str) -> None:
    gateway = Server("gateway")
    gateway.mount(demo(), "ev")
    async with connect(gateway, mode=mode) as client:
        result = await client.call_tool("ev_links", {})
        link, web, text, blob = result.content[1:]
        assert link.uri == "demo://ev/resource/dynamic/blob/1"
        assert web.uri == "https://example.com/page"  # not the child's: left as it is
        assert text.resource.uri == "demo://ev/resource/static"
        assert blob.resource.uri == "file://ev//etc/app/config.yaml"
        assert result.structured_content == {"uri": "demo://resource/static"}  # not rewritten
        read = await client.read_resource(link.uri)
        assert read.contents[0].uri == link.uri
        assert base64.b64decode(read.contents[0].blob) == b"\x01"
        assert (await client.read_resource(text.resource.uri)).contents[0].text == "static text"
        assert (await client.read_resource(blob.resource.uri)).contents[0].text == "debug: true"
        with pytest.raises(mcp.MCPError, match="Unknown resource"):
            await client.read_resource("demo://resource/dynamic/blob/1")


@MODES
async def test_links_in_a_mounted_prompt_are_readable_through_the_parent(mode: str) -> None:
    gateway = Server("gateway")
    gateway.mount(demo(), "ev")
    async with connect(gateway, mode=mode) as client:
        messages = (await client.get_prompt("ev_resource_prompt", {})).messages
        assert messages[0].content.text == "Look at this:"
        embedded, link = messages[1].content, messages[2].content
        assert embedded.resource.uri == "demo://ev/resource/static"
        assert link.uri == "demo://ev/resource/dynamic/blob/2"
        assert (await client.read_resource(embedded.resource.uri)).contents[0].text == "static text"
        assert base64.b64decode((await client.read_resource(link.uri)).contents[0].blob) == b"\x02"


async def test_nested_mounts_rename_links_at_every_level() -> None:
    top, middle = Server("top"), Server("middle")
    middle.mount(demo(), "ev")
    top.mount(middle, "mid")
    async with connect(top) as client:
        link = (await client.call_tool("mid_ev_links", {})).content[1]
        assert link.uri == "demo://mid/ev/resource/dynamic/blob/1"
        assert base64.b64decode((await client.read_resource(link.uri)).contents[0].blob) == b"\x01"


async def test_results_without_links_and_unprefixed_mounts_are_untouched() -> None:
    child = demo()
    gateway = Server("gateway")
    gateway.mount(child, "ev")
    gateway.mount(child, None)  # no prefix: nothing renamed, the child's own run
    assert gateway.catalog.get("links").tool.run is child.catalog.get("links").tool.run
    assert (await gateway.call_tool("links", {})).content[1].uri == "demo://resource/dynamic/blob/1"
    plain = await gateway.call_tool("ev_plain", {})
    assert plain.text == "no links"


async def test_a_resource_the_child_adds_after_the_mount_is_linked_under_the_parent() -> None:
    """A child serving no resource costs a mounted call nothing; once it serves one, its links are renamed."""
    child = Server("demo")

    @child.tool
    def link() -> ToolResult:
        return ToolResult([ResourceLink("demo://resource/late", "late")])

    parent = Server("gateway")
    parent.mount(child, prefix="ev")
    before = await parent.call_tool("ev_link", {})
    child.add_resource(lambda: "late text", "demo://resource/late", name="late")
    after = await parent.call_tool("ev_link", {})
    assert [block.uri for block in before.content] == ["demo://resource/late"]  # (not served yet: as it is)
    assert [block.uri for block in after.content] == ["demo://ev/resource/late"]
    assert (await parent.read_resource("demo://ev/resource/late")).contents[0].text == "late text"


@MODES
async def test_a_mounted_reads_contents_of_other_child_resources_are_readable_through_the_parent(mode: str) -> None:
    """A read answering with several contents (a folder and its entries) names each under the parent's URIs."""
    child = demo()

    @child.resource("demo://folder")
    def folder() -> list[TextResourceContents]:
        return [
            TextResourceContents("demo://folder", "2 entries"),
            TextResourceContents("demo://resource/static", "static text"),
            TextResourceContents("demo://resource/dynamic/blob/3", "blob 3"),
            TextResourceContents("https://example.com/elsewhere", "not the child's"),
        ]

    gateway = Server("gateway")
    gateway.mount(child, "ev")
    async with connect(gateway, mode=mode) as client:
        contents = (await client.read_resource("demo://ev/folder")).contents
        assert [item.uri for item in contents] == [
            "demo://ev/folder",
            "demo://ev/resource/static",
            "demo://ev/resource/dynamic/blob/3",
            "https://example.com/elsewhere",
        ]
        assert (await client.read_resource(contents[1].uri)).contents[0].text == "static text"


def test_a_read_result_keeps_what_the_child_does_not_serve_and_is_not_copied_when_nothing_changes() -> None:
    links = Links(UriPrefix("p"), demo().registry("resource"))
    result = ResourceResult([TextResourceContents("r://a", "1"), TextResourceContents("r://other", "2")])
    assert [item.uri for item in links.read_result(result, "r://a", "r://p/a").contents] == ["r://p/a", "r://other"]
    assert links.read_result(result, "r://b", "r://p/b") is result
