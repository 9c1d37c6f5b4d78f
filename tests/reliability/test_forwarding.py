"""Completion and resource subscriptions reach the server that owns the prompt, template or
resource, through mounts and remote upstreams; updates come back under the client's URIs."""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
import pytest

from tests.conftest import subprocess_env
from tests.server.test_remote import wait_for_file
from toolweave import Server
from toolweave.server.remote import Backoff, RemoteServer
from toolweave.testing import connect

from .raw import SERVERS


class Updates:
    """A client's message handler keeping the URIs of the `resources/updated` notifications it gets."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.arrived = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, mt.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self.arrived.set()


def child_server() -> Server:
    sys.path.insert(0, str(SERVERS))
    try:
        from components import server  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SERVERS))
    return server  # type: ignore[no-any-return]


def components_upstream(**options: Any) -> RemoteServer:
    """The `components.py` test server as a stdio upstream."""
    return RemoteServer.stdio(sys.executable, [str(SERVERS / "components.py")], env=subprocess_env(), **options)


def gateway(kind: str) -> Server:
    root = Server("gateway")
    root.mount(child_server() if kind == "local" else components_upstream(), prefix="kid")
    return root


async def counter_updates(root: Server) -> list[str]:
    """The updates a handshake-era client subscribed to `resource://kid/counter` gets after one `kid_bump`."""
    updates = Updates()
    async with connect(root, mode="legacy", message_handler=updates) as client:
        await client.session.subscribe_resource("resource://kid/counter")
        await client.call_tool("kid_bump", {})
        with anyio.fail_after(10):
            await updates.arrived.wait()
    return updates.uris


@pytest.mark.parametrize("kind", ["local", "remote"])
async def test_completion_of_a_mounted_prompt_and_template_reaches_their_owner(kind: str) -> None:
    async with connect(gateway(kind), mode="legacy") as client:
        prompt = await client.complete(
            mt.PromptReference(type="ref/prompt", name="kid_greet"), {"name": "city", "value": "Par"}
        )
        template = await client.complete(
            mt.ResourceTemplateReference(type="ref/resource", uri="resource://kid/{city}/weather"),
            {"name": "city", "value": "L"},
        )
    assert prompt.completion.values == ["prompt:Paris", "prompt:Parma"]
    assert template.completion.values == ["resource:Lima"]


async def test_the_parents_completer_answers_for_its_own_prompts() -> None:
    root = gateway("local")
    root.add_prompt(lambda topic: topic, name="own")
    root.completion(lambda request: [f"root:{request.name}"])
    async with connect(root, mode="legacy") as client:
        own = await client.complete(mt.PromptReference(type="ref/prompt", name="own"), {"name": "topic", "value": ""})
        mounted = await client.complete(
            mt.PromptReference(type="ref/prompt", name="kid_greet"), {"name": "city", "value": "Li"}
        )
    assert own.completion.values == ["root:own"]
    assert mounted.completion.values == ["prompt:Lima"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
@pytest.mark.parametrize("kind", ["local", "remote"])
async def test_a_subscription_to_a_mounted_resource_gets_its_updates(kind: str) -> None:
    assert await counter_updates(gateway(kind)) == ["resource://kid/counter"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
async def test_a_subscription_reaches_its_owner_past_a_mount_whose_child_would_match_the_parents_uri() -> None:
    """Another mount's child with a template matching the parent's URI (not its own prefix) is not the owner."""
    files = Server("files")
    files.add_resource(lambda folder, name: f"{folder}/{name}", "resource://{folder}/{name}", name="file")
    root = Server("gateway")
    root.mount(files, prefix="files")  # serves resource://files/{folder}/{name}; "resource://kid/counter" is not its
    root.mount(components_upstream(), prefix="kid")
    assert await counter_updates(root) == ["resource://kid/counter"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
async def test_a_subscription_is_made_again_at_an_upstream_that_was_restarted() -> None:
    """The restarted upstream is subscribed again: its updates keep reaching the subscriber."""
    updates = Updates()
    root = Server("gateway")
    root.mount(components_upstream(backoff=Backoff(initial=0.05)), prefix="kid")
    async with connect(root, mode="legacy", message_handler=updates) as client:
        await client.session.subscribe_resource("resource://kid/counter")
        first = int((await client.call_tool("kid_pid", {})).content[0].text)
        os.kill(first, signal.SIGKILL)
        with anyio.fail_after(10):
            while (await client.call_tool("kid_pid", {})).is_error:  # noqa: ASYNC110 - until the new process answers
                await anyio.sleep(0.05)
            await client.call_tool("kid_bump", {})
            await updates.arrived.wait()
    assert updates.uris == ["resource://kid/counter"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
async def test_a_subscription_made_while_a_restarted_upstream_is_subscribed_again_reaches_it_too(
    tmp_path: Path,
) -> None:
    """A URI subscribed to while the new session is being told the earlier ones is sent as well."""
    marker = tmp_path / "subscribing"
    env = {**subprocess_env(), "MARKER": str(marker)}
    remote = RemoteServer.stdio(
        sys.executable, [str(SERVERS / "subscription_quirks.py")], env=env, backoff=Backoff(initial=0.05)
    )
    root = Server("gateway")
    root.mount(remote, prefix="up")
    async with connect(root, mode="legacy") as client:
        await client.session.subscribe_resource("note://up/slow")
        marker.unlink()
        os.kill(int((await client.call_tool("up_pid", {})).content[0].text), signal.SIGKILL)
        await wait_for_file(marker)  # the new upstream is being subscribed to note://slow again
        await client.session.subscribe_resource("note://up/fast")
        with anyio.fail_after(10):
            while (await client.call_tool("up_pid", {})).is_error:  # noqa: ASYNC110 - until the session is up
                await anyio.sleep(0.05)
        subscribed = (await client.call_tool("up_subs", {})).content[0].text
    assert subscribed == "note://fast,note://slow"


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
async def test_an_upstreams_update_for_no_uri_is_dropped_and_the_next_one_arrives(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An update for `counter` (no scheme: nothing the gateway could serve under its prefix) is not an error."""
    updates = Updates()
    env = {**subprocess_env(), "MARKER": str(tmp_path / "unused")}
    root = Server("gateway")
    root.mount(RemoteServer.stdio(sys.executable, [str(SERVERS / "subscription_quirks.py")], env=env), prefix="up")
    async with connect(root, mode="legacy", message_handler=updates) as client:
        await client.session.subscribe_resource("note://up/fast")
        await client.call_tool("up_updates", {})
        with anyio.fail_after(10):
            await updates.arrived.wait()
    assert updates.uris == ["note://up/fast"]
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []


@pytest.mark.parametrize("kind", ["local", "remote"])
async def test_a_2026_listen_stream_for_a_mounted_resource_gets_its_updates(kind: str) -> None:
    uris = ["resource://kid/counter"]
    async with connect(gateway(kind)) as client, client.listen(resource_subscriptions=uris) as subscription:
        events: list[Any] = []
        with anyio.fail_after(10):
            while not events:  # until the upstream's subscription is in place
                await client.call_tool("kid_bump", {})
                with anyio.move_on_after(0.3):
                    events.append(await subscription.__anext__())
    assert str(events[0].uri) == "resource://kid/counter"


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # resources/subscribe
async def test_a_subscription_reaches_a_2026_only_upstream_through_its_listen_stream() -> None:
    updates = Updates()
    root = Server("gateway")
    remote = RemoteServer.stdio(sys.executable, [str(SERVERS / "modern_only.py")], env=subprocess_env())
    root.mount(remote, prefix="up")
    async with connect(root, mode="legacy", message_handler=updates) as client:
        await client.session.subscribe_resource("resource://up/counter")
        with anyio.fail_after(10):
            while not updates.arrived.is_set():  # until the listen stream, opened again with the URI, carries it
                await client.call_tool("up_bump", {})
                with anyio.move_on_after(0.3):
                    await updates.arrived.wait()
    assert remote.era == "2026" and updates.uris == ["resource://up/counter"]
