"""`logging/setLevel` (handshake era) and `MissingCapability` (-32021), through the official client."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from mcp import MCPError
from mcp.shared.exceptions import MCPDeprecationWarning

from toolweave import Context, MissingCapability, Server
from toolweave.mcp.levels import LEVELS, ConnectionLevels
from toolweave.testing import connect


def chatty_server() -> Server:
    server = Server("chatty")

    @server.tool
    async def chat(ctx: Context) -> str:
        """Log once at each of three levels."""
        await ctx.debug("debug line")
        await ctx.info("info line")
        await ctx.error("error line")
        return "ok"

    @server.tool
    async def needs_sampling(ctx: Context) -> str:
        """Refuse unless the client declared sampling."""
        if "sampling" not in ctx.client_capabilities:
            raise MissingCapability("sampling")
        return "sampled"

    return server


async def test_handshake_clients_get_every_level_until_they_set_one() -> None:
    received: list[str] = []

    async def on_log(params: Any) -> None:
        received.append(params.data)

    async with connect(chatty_server(), mode="legacy", logging_callback=on_log) as client:
        await client.call_tool("chat", {})
    assert received == ["debug line", "info line", "error line"]


async def test_set_level_filters_the_messages_below_it() -> None:
    received: list[str] = []

    async def on_log(params: Any) -> None:
        received.append(params.data)

    async with connect(chatty_server(), mode="legacy", logging_callback=on_log) as client:
        with warnings.catch_warnings():  # the SDK's client marks logging deprecated (SEP-2577)
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level("info")
        await client.call_tool("chat", {})
    assert received == ["info line", "error line"]


async def test_set_level_is_advertised_as_the_logging_capability() -> None:
    async with connect(chatty_server(), mode="legacy") as client:
        assert client.server_capabilities.logging is not None


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_missing_capability_is_json_rpc_error_32021_naming_it(mode: str) -> None:
    async with connect(chatty_server(), mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("needs_sampling", {})
    assert caught.value.error.code == -32021
    assert caught.value.error.data == {"requiredCapabilities": {"sampling": {}}}
    assert "sampling" in caught.value.error.message


def test_missing_capability_needs_a_name() -> None:
    with pytest.raises(ValueError, match="at least one"):
        MissingCapability()


class _Connection:
    """Just enough of an SDK connection: an exit stack the levels register their cleanup on."""

    def __init__(self) -> None:
        from contextlib import ExitStack

        self.exit_stack = ExitStack()


def test_levels_are_per_connection_and_forgotten_when_it_closes() -> None:
    levels, first, second = ConnectionLevels(), _Connection(), _Connection()
    levels.set(first, "warning")
    assert not levels.allows(first, "info") and levels.allows(first, "error")
    assert levels.allows(second, "debug")
    first.exit_stack.close()
    assert levels.allows(first, "debug")


def test_levels_are_ordered_as_in_the_spec() -> None:
    assert LEVELS == ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
