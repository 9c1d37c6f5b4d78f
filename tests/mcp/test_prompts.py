"""Prompts through the official `mcp` client, in both protocol eras."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
import mcp
import mcp.types as mt
import pytest

from toolweave import Context, DuplicateError, Image, Message, PromptResult, Server, ToolError
from toolweave.testing import connect

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


@dataclass
class SdkLikeMessage:
    role: str
    content: Any


def build() -> Server:
    server = Server("prompts", page_size=3)

    @server.prompt
    def text(topic: str) -> str:
        """One user message."""
        return f"Tell me about {topic}."

    @server.prompt()
    def reply() -> Message:
        return Message("I can help with that.", role="assistant")

    @server.prompt(name="chat", title="A chat", description="A short conversation.")
    def conversation(topic: str, turns: int = 2) -> list[Any]:
        return [f"{topic}?", Message(f"{turns} turns", role="assistant")]

    @server.prompt
    def sdk_message() -> SdkLikeMessage:
        return SdkLikeMessage("assistant", mt.TextContent(type="text", text="from an SDK type"))

    @server.prompt
    def picture() -> Image:
        return Image(data=b"\x89PNG", format="png")

    @server.prompt
    def data() -> dict[str, int]:
        return {"a": 1}

    @server.prompt
    def full() -> PromptResult:
        return PromptResult([Message("x")], description="custom")

    @server.prompt
    async def greet(name: str, ctx: Context) -> str:
        assert ctx.server is server
        return f"Greet {name} (request {ctx.request_id})."

    @server.prompt
    def broken() -> str:
        raise KeyError("secret-value")

    @server.prompt
    def refused() -> str:
        raise ToolError("not today")

    return server


async def _messages(client: Any, name: str, arguments: dict[str, str] | None = None) -> list[tuple[str, Any]]:
    result = await client.get_prompt(name, arguments)
    return [(m.role, m.content.text if m.content.type == "text" else m.content.type) for m in result.messages]


@MODES
async def test_list_prompts_describes_every_prompt_in_pages(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        first = await client.list_prompts()
        assert [p.name for p in first.prompts] == ["text", "reply", "chat"]
        names = [p.name for p in first.prompts]
        cursor = first.next_cursor
        while cursor:
            page = await client.list_prompts(cursor=cursor)
            names += [p.name for p in page.prompts]
            cursor = page.next_cursor
        assert names[3:] == ["sdk_message", "picture", "data", "full", "greet", "broken", "refused"]
        chat = first.prompts[2]
        assert (chat.title, chat.description) == ("A chat", "A short conversation.")
        assert [(a.name, a.required) for a in chat.arguments or []] == [("topic", True), ("turns", False)]


@MODES
async def test_a_string_is_one_user_message(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        result = await client.get_prompt("text", {"topic": "MCP"})
        assert result.description == "One user message."
        assert await _messages(client, "text", {"topic": "MCP"}) == [("user", "Tell me about MCP.")]


@MODES
async def test_a_message_keeps_its_role(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert await _messages(client, "reply") == [("assistant", "I can help with that.")]


@MODES
async def test_a_list_is_a_conversation_with_converted_arguments(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert await _messages(client, "chat", {"topic": "tea", "turns": "4"}) == [
            ("user", "tea?"),
            ("assistant", "4 turns"),
        ]


@MODES
async def test_a_prompt_message_from_the_sdk_is_accepted(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert await _messages(client, "sdk_message") == [("assistant", "from an SDK type")]


@MODES
async def test_media_and_other_values(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert await _messages(client, "picture") == [("user", "image")]
        assert await _messages(client, "data") == [("user", '{"a": 1}')]
        assert (await client.get_prompt("full")).description == "custom"


@MODES
async def test_an_async_prompt_gets_the_request_context(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        [(role, text)] = await _messages(client, "greet", {"name": "Ada"})
        assert role == "user" and text.startswith("Greet Ada (request ")


@MODES
async def test_an_unknown_prompt_is_invalid_params(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.get_prompt("nope")
        assert (caught.value.error.code, caught.value.error.message) == (-32602, "Unknown prompt: nope")


@MODES
@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "topic: Field required"),
        ({"topic": "tea", "turns": "many"}, "turns: Input should be a valid integer"),
        ({"topic": "tea", "mood": "calm"}, "mood: unexpected argument"),
    ],
)
async def test_bad_arguments_are_invalid_params_naming_the_argument(
    mode: str, arguments: dict[str, str], problem: str
) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.get_prompt("chat", arguments)
        assert caught.value.error.code == -32602
        assert "Invalid arguments for prompt 'chat'" in caught.value.error.message
        assert problem in caught.value.error.message


@MODES
async def test_an_internal_error_is_masked(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.get_prompt("broken")
        assert caught.value.error.code == -32603
        assert caught.value.error.message.startswith("Error rendering prompt 'broken' (incident ")
        assert "secret" not in caught.value.error.message


@MODES
async def test_a_tool_error_message_reaches_the_client(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        with pytest.raises(mcp.MCPError) as caught:
            await client.get_prompt("refused")
        assert (caught.value.error.code, caught.value.error.message) == (-32603, "not today")


@MODES
async def test_a_disabled_prompt_is_hidden_and_unknown(mode: str) -> None:
    server = Server("s")

    @server.prompt
    def secret() -> str:
        return "x"

    @server.prompt(enabled=False)
    def draft() -> str:
        return "y"

    secret.disable()
    async with connect(server, mode=mode) as client:
        assert (await client.list_prompts()).prompts == []
        for name in ("secret", "draft"):
            with pytest.raises(mcp.MCPError, match=f"Unknown prompt: {name}"):
                await client.get_prompt(name)
        secret.enable()
        server.enable("draft")
        assert [p.name for p in (await client.list_prompts()).prompts] == ["secret", "draft"]
        assert (await client.get_prompt("draft")).messages[0].content.text == "y"


async def test_prompt_list_changed_reaches_a_2026_listener() -> None:
    server = Server("s")
    async with connect(server) as client, client.listen(prompts_list_changed=True) as events:
        server.add_prompt(lambda: "x", name="late")
        with anyio.fail_after(5):
            event = await events.__anext__()
        assert type(event).__name__ == "PromptsListChanged"
        assert [p.name for p in (await client.list_prompts()).prompts] == ["late"]


async def test_prompt_list_changed_reaches_a_handshake_client() -> None:
    server = Server("s")
    received: list[Any] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        received.append(message)
        if isinstance(message, mt.PromptListChangedNotification):
            arrived.set()

    async with connect(server, mode="legacy", message_handler=on_message) as client:
        await client.list_prompts()
        server.add_prompt(lambda: "x", name="late")
        with anyio.fail_after(5):
            await arrived.wait()
        assert not any(isinstance(m, mt.ToolListChangedNotification) for m in received)


@MODES
@pytest.mark.parametrize(("policy", "wins"), [("warn", "second"), ("replace", "second"), ("ignore", "first")])
async def test_duplicates_follow_on_duplicate_as_the_client_sees_them(mode: str, policy: Any, wins: str) -> None:
    server = Server("s", on_duplicate=policy)
    server.add_prompt(lambda: "first", name="greet")
    server.add_prompt(lambda: "second", name="greet")
    async with connect(server, mode=mode) as client:
        assert [p.name for p in (await client.list_prompts()).prompts] == ["greet"]
        assert (await client.get_prompt("greet")).messages[0].content.text == wins


def test_a_duplicate_is_refused_at_registration_under_error() -> None:
    server = Server("s", on_duplicate="error")
    server.add_prompt(lambda: "first", name="greet")
    with pytest.raises(DuplicateError, match="already has a prompt named 'greet'"):
        server.add_prompt(lambda: "second", name="greet")
