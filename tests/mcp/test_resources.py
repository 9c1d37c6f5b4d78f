"""Resources and resource templates through the official `mcp` client, in both protocol eras."""

from __future__ import annotations

import base64
import logging
from typing import Any

import anyio
import mcp
import mcp.types as mt
import pytest
from pydantic import BaseModel

from toolweave import Context, DuplicateError, Server, ToolError, UnknownResource
from toolweave.testing import connect

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


class Forecast(BaseModel):
    city: str
    days: int


def build() -> Server:
    server = Server("resources", page_size=2)

    @server.resource("resource://cities", description="Known cities.", tags={"geo"})
    def cities() -> list[str]:
        return ["Paris", "Lima"]

    @server.resource("resource://motd", mime_type="text/markdown", title="Message of the day")
    def motd() -> str:
        return "# Hello"

    @server.resource("resource://logo")
    def logo() -> bytes:
        return b"\x89PNG\x00"

    @server.resource("resource://{city}/weather")
    async def weather(city: str, ctx: Context) -> str:
        assert ctx.server is server
        return f"Sunny in {city}"

    @server.resource("forecast://{city}/{days}")
    def forecast(city: str, days: int) -> Forecast:
        return Forecast(city=city, days=days)

    @server.resource("resource://broken")
    def broken() -> str:
        raise RuntimeError("secret-value")

    @server.resource("resource://refused")
    def refused() -> str:
        raise ToolError("come back later")

    return server


async def _all(client: Any, method: str, key: str) -> list[Any]:
    items, cursor = [], None
    while True:
        page = await getattr(client, method)(cursor=cursor)
        items += getattr(page, key)
        cursor = page.next_cursor
        if not cursor:
            return items


@MODES
async def test_static_resources_are_listed_in_pages(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        resources = await _all(client, "list_resources", "resources")
        assert [r.uri for r in resources] == [
            "resource://cities",
            "resource://motd",
            "resource://logo",
            "resource://broken",
            "resource://refused",
        ]
        motd = resources[1]
        assert (motd.name, motd.title, motd.mime_type) == ("motd", "Message of the day", "text/markdown")
        assert resources[0].description == "Known cities."


@MODES
async def test_templates_are_listed_separately(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        templates = await _all(client, "list_resource_templates", "resource_templates")
        assert [(t.name, t.uri_template) for t in templates] == [
            ("weather", "resource://{city}/weather"),
            ("forecast", "forecast://{city}/{days}"),
        ]


@MODES
async def test_a_string_is_text(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        [contents] = (await client.read_resource("resource://motd")).contents
        assert isinstance(contents, mt.TextResourceContents)
        assert (contents.uri, contents.text, contents.mime_type) == (
            "resource://motd",
            "# Hello",
            "text/markdown",
        )


@MODES
async def test_bytes_are_a_blob(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        [contents] = (await client.read_resource("resource://logo")).contents
        assert isinstance(contents, mt.BlobResourceContents)
        assert base64.b64decode(contents.blob) == b"\x89PNG\x00"
        assert contents.mime_type == "application/octet-stream"


@MODES
async def test_anything_else_is_json(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        [contents] = (await client.read_resource("resource://cities")).contents
        assert (contents.text, contents.mime_type) == ('["Paris", "Lima"]', "application/json")


@MODES
async def test_a_template_with_one_parameter(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        [contents] = (await client.read_resource("resource://Lima/weather")).contents
        assert (contents.uri, contents.text) == ("resource://Lima/weather", "Sunny in Lima")


@MODES
async def test_a_template_with_two_parameters_converts_them(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        [contents] = (await client.read_resource("forecast://Paris/3")).contents
        assert contents.text == '{"city": "Paris", "days": 3}'


@MODES
async def test_a_parameter_that_does_not_convert_is_invalid_params(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.read_resource("forecast://Paris/soon")
        assert caught.value.error.code == -32602
        assert "days: Input should be a valid integer" in caught.value.error.message


@MODES
@pytest.mark.parametrize("uri", ["resource://nowhere", "resource://Lima/weather/extra", "other://cities"])
async def test_an_unknown_uri_is_invalid_params_with_the_uri(mode: str, uri: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.read_resource(uri)
        error = caught.value.error
        assert (error.code, error.message, error.data) == (-32602, f"Unknown resource: {uri}", {"uri": uri})


@MODES
async def test_an_internal_error_is_masked(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.read_resource("resource://broken")
        assert caught.value.error.code == -32603
        assert caught.value.error.message.startswith("Error reading resource 'resource://broken' (incident ")
        assert "secret" not in caught.value.error.message


@MODES
async def test_a_tool_error_message_reaches_the_client(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError, match="come back later"):
            await client.read_resource("resource://refused")


@MODES
async def test_a_template_saying_unknown_resource_is_the_unknown_error_of_the_clients_uri(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A template's "no such file" was an internal error (-32603, masked, its traceback logged):
    a template author had no way to answer "not found"."""
    files = Server("files")

    @files.resource("file:///{+path}")
    def read(path: str) -> str:
        raise UnknownResource(f"file:///{path}")

    gateway = Server("gateway")
    gateway.mount(files, prefix="docs")
    async with connect(gateway, mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.read_resource("file://docs//notes.md")
    error = caught.value.error
    assert (error.code, error.message, error.data) == (
        -32602,
        "Unknown resource: file://docs//notes.md",
        {"uri": "file://docs//notes.md"},
    )
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


@MODES
async def test_disabled_resources_are_hidden_and_unknown(mode: str) -> None:
    server = build()
    server.disable("resource://motd", "forecast")
    server.disable(tags={"geo"})
    async with connect(server, mode=mode) as client:
        uris = [r.uri for r in await _all(client, "list_resources", "resources")]
        assert "resource://motd" not in uris and "resource://cities" not in uris
        templates = await _all(client, "list_resource_templates", "resource_templates")
        assert [t.name for t in templates] == ["weather"]
        for uri in ("resource://motd", "forecast://Paris/3"):
            with pytest.raises(mcp.MCPError, match="Unknown resource"):
                await client.read_resource(uri)
        server.enable("resource://motd")
        assert (await client.read_resource("resource://motd")).contents[0].text == "# Hello"


async def test_resource_list_changed_reaches_a_2026_listener() -> None:
    server = Server("s")
    async with connect(server) as client, client.listen(resources_list_changed=True) as events:
        server.add_resource(lambda: "x", "resource://late", name="late")
        with anyio.fail_after(5):
            event = await events.__anext__()
        assert type(event).__name__ == "ResourcesListChanged"
        assert [r.uri for r in (await client.list_resources()).resources] == ["resource://late"]


async def test_resource_list_changed_reaches_a_handshake_client() -> None:
    server = Server("s")
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ResourceListChangedNotification):
            arrived.set()

    async with connect(server, mode="legacy", message_handler=on_message) as client:
        await client.list_resources()
        server.add_resource(lambda city: city, "resource://{city}", name="city")
        with anyio.fail_after(5):
            await arrived.wait()


@MODES
@pytest.mark.parametrize(("policy", "wins"), [("warn", "second"), ("replace", "second"), ("ignore", "first")])
async def test_duplicates_follow_on_duplicate_as_the_client_sees_them(mode: str, policy: Any, wins: str) -> None:
    server = Server("s", on_duplicate=policy)
    server.add_resource(lambda id: f"first {id}", "item://{id}", name="item")
    server.add_resource(lambda id: f"second {id}", "item://{id}", name="item")
    async with connect(server, mode=mode) as client:
        assert len((await client.list_resource_templates()).resource_templates) == 1
        assert (await client.read_resource("item://1")).contents[0].text == f"{wins} 1"


def test_a_duplicate_is_refused_at_registration_under_error() -> None:
    server = Server("s")
    server.add_resource(lambda: "first", "resource://x", name="x")
    with pytest.raises(DuplicateError, match="already has a resource 'resource://x'"):
        server.add_resource(lambda: "second", "resource://x", name="x")
