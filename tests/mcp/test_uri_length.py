"""A resource URI longer than `MAX_URI_LENGTH` is refused at once, in every request that names one,
through the official client: matching it against templates cost ~1 s of CPU per request at 4 MiB."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import mcp.types as mt
import pytest
from mcp import MCPError
from mcp.shared.exceptions import MCPDeprecationWarning

from toolweave import InvalidArguments, Server
from toolweave.core.uri_template import MAX_URI_LENGTH
from toolweave.testing import connect

TOO_LONG = "r://" + "a-" * (MAX_URI_LENGTH // 2)  # would match the template, past the cap
LONGEST = TOO_LONG[: MAX_URI_LENGTH - 1] + "z"


def dashed_server() -> Server:
    server = Server("dashed")

    @server.resource("r://{a}-{b}-{c}-{d}")
    def parts(a: str, b: str, c: str, d: str) -> str:
        return f"{len(a)} {b} {c} {d}"

    return server


def complete(client: Any, uri: str) -> Awaitable[Any]:
    return client.complete(mt.ResourceTemplateReference(type="ref/resource", uri=uri), {"name": "a", "value": ""})


async def subscribe(client: Any, uri: str) -> None:
    with warnings.catch_warnings():  # the SDK's client marks resources/subscribe deprecated (2026)
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await client.subscribe_resource(uri)


async def unsubscribe(client: Any, uri: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await client.unsubscribe_resource(uri)


REQUESTS: dict[str, Callable[[Any, str], Awaitable[Any]]] = {
    "resources/read": lambda client, uri: client.read_resource(uri),
    "resources/subscribe": subscribe,
    "resources/unsubscribe": unsubscribe,
    "completion/complete": complete,
}


@pytest.mark.parametrize("method", list(REQUESTS))
async def test_a_uri_past_the_cap_is_invalid_params_naming_the_cap(method: str) -> None:
    async with connect(dashed_server(), mode="legacy") as client:
        with pytest.raises(MCPError) as refused:
            await REQUESTS[method](client, TOO_LONG)
        served = await client.read_resource("r://1-2-3-4")  # the server keeps serving
    assert refused.value.error.code == mt.INVALID_PARAMS
    assert f"at most {MAX_URI_LENGTH} (MAX_URI_LENGTH)" in refused.value.error.message
    assert len(refused.value.error.message) < 200  # the URI is not echoed back
    assert served.contents[0].text == "1 2 3 4"  # type: ignore[union-attr]


@pytest.mark.parametrize("method", list(REQUESTS))
async def test_a_uri_at_the_cap_is_served(method: str) -> None:
    async with connect(dashed_server(), mode="legacy") as client:
        await REQUESTS[method](client, LONGEST)


async def test_a_2026_listen_naming_a_uri_past_the_cap_is_refused() -> None:
    async with connect(dashed_server()) as client:
        with pytest.raises(MCPError) as refused:
            async with client.listen(resource_subscriptions=["r://1-2-3-4", TOO_LONG]):
                pass
    assert refused.value.error.code == mt.INVALID_PARAMS and "MAX_URI_LENGTH" in refused.value.error.message


async def test_an_in_process_read_past_the_cap_is_invalid_arguments() -> None:
    with pytest.raises(InvalidArguments, match="MAX_URI_LENGTH"):
        await dashed_server().read_resource(TOO_LONG)


def test_an_update_past_the_cap_from_a_mounted_server_is_logged_shortened(caplog: pytest.LogCaptureFixture) -> None:
    """A mounted server's news of a URI past the cap is nothing its parent serves: logged (the URI
    cut short), not raised into the code that announced it."""
    gateway = Server("gateway")
    gateway.mount(dashed_server(), prefix="d")
    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        gateway.mounts[0].child.resource_updated(TOO_LONG)
    said = [record.getMessage() for record in caplog.records]
    assert len(said) == 2 and all("reaches no client" in line and len(line) < 400 for line in said)
