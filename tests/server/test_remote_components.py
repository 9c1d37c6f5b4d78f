"""Prompts, resources and resource templates of remote MCP servers, mounted under a prefix.

Real upstreams in subprocesses (a toolweave server and one built with the bare `mcp` SDK), reached
through a gateway by the official `mcp` client.
"""

from __future__ import annotations

import base64
import logging
import os
import signal
import sys
from typing import Any

import anyio
import mcp
import mcp.types as mt
import pytest

from tests.conftest import subprocess_env
from toolweave import Server
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.testing import connect

from .changes import watched
from .test_remote import UPSTREAMS, running, stdio_remote, upstream_pid

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


async def prompt_names(client: Any) -> list[str]:
    return [prompt.name for prompt in (await client.list_prompts()).prompts]


async def resource_uris(client: Any) -> list[str]:
    return [resource.uri for resource in (await client.list_resources()).resources]


async def template_uris(client: Any) -> list[str]:
    return [template.uri_template for template in (await client.list_resource_templates()).resource_templates]


# -- prompts ------------------------------------------------------------------------------------


@MODES
async def test_a_toolweave_upstreams_prompt_is_listed_with_the_prefix_and_rendered(mode: str) -> None:
    async with running(stdio_remote(), mode=mode) as client:
        [review] = (await client.list_prompts()).prompts
        result = await client.get_prompt("up_review", {"code": "x = 1"})
    assert (review.name, review.title, review.description) == ("up_review", "Code review", "Ask for a code review.")
    assert [(arg.name, arg.description, arg.required) for arg in review.arguments or []] == [
        ("code", "The code to review.", True),
        ("style", "How the review is written.", False),
    ]
    assert [(message.role, message.content.text) for message in result.messages] == [
        ("user", "Review this (terse):\nx = 1"),
        ("assistant", "Sure."),
    ]


async def test_a_bare_sdk_upstreams_prompts_keep_their_arguments_across_pages() -> None:
    async with running(stdio_remote("ll_upstream.py")) as client:
        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
    assert list(prompts) == ["up_greet", "up_plain"]
    greet = prompts["up_greet"]
    assert (greet.title, greet.description) == ("Greeting", "Greet someone.")
    assert [(arg.name, arg.description, arg.required) for arg in greet.arguments or []] == [
        ("who", "Who to greet", True),
        ("mood", None, False),
    ]
    assert greet.meta == {"example.com/origin": "ll_upstream"}


async def test_a_remote_prompts_messages_pass_through_with_its_resource_uris_prefixed() -> None:
    async with running(stdio_remote("ll_upstream.py"), mode="legacy") as client:
        result = await client.get_prompt("up_greet", {"who": "Ada", "mood": "glad"})
    user, assistant = result.messages
    assert (user.role, user.content.text) == ("user", "Greet Ada (glad)")
    assert assistant.role == "assistant" and isinstance(assistant.content, mt.EmbeddedResource)
    embedded = assistant.content.resource
    assert isinstance(embedded, mt.TextResourceContents)
    assert (embedded.uri, embedded.text, embedded.mime_type) == ("note://up/1/text", "first note", "text/plain")
    assert result.description == "A greeting, by hand"
    assert result.meta is not None and result.meta["example.com/rendered"] is True


async def test_a_remote_prompts_required_arguments_are_checked_at_the_gateway() -> None:
    async with running(stdio_remote("ll_upstream.py"), mode="legacy") as client:
        with pytest.raises(mcp.MCPError) as refused:
            await client.get_prompt("up_greet", {"mood": "glad"})
    assert refused.value.error.code == mt.INVALID_PARAMS
    assert "Invalid arguments for prompt 'up_greet'" in refused.value.error.message
    assert "who" in refused.value.error.message


# -- resources ----------------------------------------------------------------------------------


async def test_a_toolweave_upstreams_resources_and_templates_are_listed_under_the_prefix() -> None:
    async with running(stdio_remote(), mode="legacy") as client:
        resources = {resource.uri: resource for resource in (await client.list_resources()).resources}
        templates = await template_uris(client)
    assert list(resources) == ["resource://up/cities", "resource://up/logo"]
    assert resources["resource://up/cities"].description == "Known cities"
    assert resources["resource://up/logo"].mime_type == "image/png"
    assert templates == ["resource://up/{city}/weather", "resource://up/forecast/{days}"]


@MODES
async def test_reading_remote_resources_and_templates_passes_the_contents_through(mode: str) -> None:
    async with running(stdio_remote(), mode=mode) as client:
        [cities] = (await client.read_resource("resource://up/cities")).contents
        [logo] = (await client.read_resource("resource://up/logo")).contents
        [weather] = (await client.read_resource("resource://up/Lima/weather")).contents
    assert isinstance(cities, mt.TextResourceContents) and isinstance(weather, mt.TextResourceContents)
    assert (cities.text, cities.mime_type) == ('["Paris", "Lima"]', "application/json")
    assert isinstance(logo, mt.BlobResourceContents)
    assert (base64.b64decode(logo.blob), logo.mime_type) == (b"\x89PNG-not-really", "image/png")
    assert (weather.uri, weather.text) == ("resource://up/Lima/weather", "sunny in Lima")
    assert weather.mime_type == "text/plain"


async def test_a_bare_sdk_upstreams_resources_templates_and_blobs_come_through(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    async with running(stdio_remote("ll_upstream.py"), prefix="notes") as client:
        resources = {resource.uri: resource for resource in (await client.list_resources()).resources}
        templates = await template_uris(client)
        [index] = (await client.read_resource("note://notes/index")).contents
        [blob] = (await client.read_resource("note://notes/blob")).contents
        [note] = (await client.read_resource("note://notes/2/text")).contents
    assert list(resources) == ["note://notes/index", "note://notes/blob"]
    assert (resources["note://notes/index"].title, resources["note://notes/index"].mime_type) == (
        "Index",
        "text/markdown",
    )
    assert templates == ["note://notes/{id}/text", "file://notes//{+path}"]
    assert isinstance(index, mt.TextResourceContents) and (index.text, index.mime_type) == ("# Notes", "text/markdown")
    assert isinstance(blob, mt.BlobResourceContents) and (blob.blob, blob.mime_type) == ("AAEC", "application/x-demo")
    assert isinstance(note, mt.TextResourceContents) and note.text == "second note"
    assert not [record.getMessage() for record in caplog.records if "skipping" in record.getMessage()]


@pytest.mark.parametrize(
    ("script", "uri"),
    [("ll_upstream.py", "note://up/9/text"), ("tw_upstream.py", "resource://up/forecast/soon")],
)
async def test_a_read_the_upstream_refuses_as_invalid_is_invalid_params_for_the_callers_uri(
    script: str, uri: str
) -> None:
    async with running(stdio_remote(script), mode="legacy") as client:
        with pytest.raises(mcp.MCPError) as refused:
            await client.read_resource(uri)
    assert refused.value.error.code == mt.INVALID_PARAMS
    assert refused.value.error.data == {"uri": uri}
    assert refused.value.error.message.startswith(f"upstream 'up' refused resource {uri!r}: ")  # as the client read it


# -- changes ------------------------------------------------------------------------------------


@MODES
async def test_an_upstreams_prompt_and_resource_changes_reach_the_gateways_clients(mode: str) -> None:
    gateway = Server("gateway")
    gateway.mount(stdio_remote(), prefix="up")
    async with watched(gateway, mode, "prompts", "resources") as (client, changes):
        assert "up_fresh" not in await prompt_names(client)
        await client.call_tool("up_grow_components", {"name": "fresh"})
        with anyio.fail_after(5):
            while set(changes.kinds) != {"prompts", "resources"}:
                await changes.wait_for(changes.count + 1)
        assert "up_fresh" in await prompt_names(client)
        assert "resource://up/grown/fresh" in await resource_uris(client)
        rendered = await client.get_prompt("up_fresh")
        [read] = (await client.read_resource("resource://up/grown/fresh")).contents
    assert rendered.messages[0].content.text == "grown fresh"
    assert isinstance(read, mt.TextResourceContents) and read.text == "grown fresh"


async def test_a_bare_sdk_upstreams_list_changed_for_prompts_and_resources_is_followed() -> None:
    gateway = Server("gateway")
    gateway.mount(stdio_remote("ll_upstream.py"), prefix="up")
    async with watched(gateway, "legacy", "prompts", "resources") as (client, changes):
        await client.call_tool("up_enable_extra", {})
        with anyio.fail_after(5):
            while set(changes.kinds) != {"prompts", "resources"}:
                await changes.wait_for(changes.count + 1)
        assert await prompt_names(client) == ["up_greet", "up_plain", "up_extra_prompt"]
        assert "note://up/extra" in await resource_uris(client)


# -- the upstream goes away ---------------------------------------------------------------------


async def test_a_dead_upstreams_prompts_and_resources_fail_fast_and_stay_listed() -> None:
    remote = stdio_remote(backoff=Backoff(initial=30))
    async with running(remote, mode="legacy") as client:
        os.kill(await upstream_pid(client), signal.SIGKILL)
        with anyio.fail_after(5):
            while remote.connected:  # noqa: ASYNC110 - waiting for the supervisor to notice
                await anyio.sleep(0.02)
        with anyio.fail_after(2):
            with pytest.raises(mcp.MCPError) as prompt_failed:
                await client.get_prompt("up_review", {"code": "x"})
            with pytest.raises(mcp.MCPError) as read_failed:
                await client.read_resource("resource://up/Paris/weather")
        assert await prompt_names(client) == ["up_review"]
        assert await resource_uris(client) == ["resource://up/cities", "resource://up/logo"]
        assert "resource://up/{city}/weather" in await template_uris(client)
    assert prompt_failed.value.error.code == read_failed.value.error.code == mt.INTERNAL_ERROR
    # the messages name the prompt and the resource as the client called them
    assert prompt_failed.value.error.message == "upstream 'up' is not connected; prompt 'up_review' is unavailable"
    assert read_failed.value.error.message == (
        "upstream 'up' is not connected; resource 'resource://up/Paris/weather' is unavailable"
    )


async def test_in_process_gets_and_reads_after_shutdown_connect_again_for_the_call() -> None:
    gateway = Server("gateway")
    gateway.mount(stdio_remote(), prefix="up")
    async with gateway:
        rendered = await gateway.get_prompt("up_review", {"code": "y"})
    again = await gateway.get_prompt("up_review", {"code": "y"})
    read = await gateway.read_resource("resource://up/cities")
    assert again.messages[0].text == rendered.messages[0].text and read.contents
    assert not gateway.running
    assert rendered.messages[0].text == "Review this (terse):\ny"
    assert [prompt.name for prompt in await gateway.list_prompts()] == ["up_review"]
    origin = gateway.prompts.catalog.get("up_review").prompt.origin
    assert origin is not None and (origin.kind, origin.original_name) == ("remote", "review")


# -- capabilities and transports ----------------------------------------------------------------


async def test_an_upstream_without_prompts_or_resources_is_not_asked_for_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolweave.upstream")
    remote = RemoteServer.stdio(sys.executable, [str(UPSTREAMS / "ll_upstream.py"), "tools-only"], env=subprocess_env())
    async with running(remote) as client:
        assert "up_echo" in [tool.name for tool in (await client.list_tools()).tools]
        assert await prompt_names(client) == []
        assert await resource_uris(client) == [] and await template_uris(client) == []
    assert not [record for record in caplog.records if "could not list" in record.getMessage()]


async def test_an_upstream_without_resource_templates_still_lists_its_resources(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.upstream")
    remote = RemoteServer.stdio(
        sys.executable, [str(UPSTREAMS / "ll_upstream.py"), "no-templates"], env=subprocess_env()
    )
    async with running(remote) as client:
        assert await resource_uris(client) == ["note://up/index", "note://up/blob"]
        assert await template_uris(client) == []
    assert not [record for record in caplog.records if "could not list" in record.getMessage()]


async def test_an_http_upstreams_prompts_and_resources_come_through(http_upstream: str) -> None:
    async with connect(_gateway(RemoteServer.http(http_upstream))) as client:
        prompts = await prompt_names(client)
        templates = await template_uris(client)
        arguments = {"up_review": {"code": "z"}, "up_greet": {"who": "Bo"}}[prompts[0]]
        rendered = await client.get_prompt(prompts[0], arguments)
        uri = templates[0].replace("{city}", "Oslo").replace("{id}", "1")
        [read] = (await client.read_resource(uri)).contents
    assert rendered.messages and isinstance(read, mt.TextResourceContents)
    assert read.uri == uri and read.text in ("sunny in Oslo", "first note")


def _gateway(remote: RemoteServer) -> Server:
    gateway = Server("gateway")
    gateway.mount(remote, prefix="up")
    return gateway


async def test_a_prompt_the_sdk_would_refuse_and_a_list_that_is_not_one_leave_the_upstream_serving(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A prompt with an argument without a name, or a resources list that is not a list, made the
    whole upstream fail to connect, restarted for ever: now the prompt is left out, the list is
    what could not be listed (its last known value, here none), and the rest is served."""
    script = [str(UPSTREAMS / "raw_upstream.py"), "bad-prompt"]
    remote = RemoteServer.stdio(sys.executable, script, env=subprocess_env())
    async with running(remote) as client:
        result = await client.call_tool("up_echo", {"text": "hi"})
        prompts, resources = await prompt_names(client), await resource_uris(client)
        state = remote.state
    assert (state, result.is_error, prompts, resources) == ("up", False, ["up_greet"], [])
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert warnings == [
        "[up] skipping an upstream prompts item 'broken': invalid ListPromptsResult: arguments.0.name: Field required",
        "[up] could not list the upstream's resources: invalid ListResourcesResult: resources: Input should be a "
        "valid list",
    ]
