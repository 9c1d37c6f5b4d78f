"""`on_get_prompt` / `on_read_resource`: chains built once, first added outermost, scoped by selectors."""

from __future__ import annotations

from typing import Any

import anyio
import mcp
import pytest

from toolweave import (
    Message,
    Middleware,
    PromptCall,
    PromptResult,
    ResourceRead,
    ResourceResult,
    Selector,
    Server,
    ToolError,
)
from toolweave.core.content import TextResourceContents
from toolweave.middleware.hooks import GetPromptNext, ReadResourceNext
from toolweave.testing import connect

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


class Layer(Middleware):
    def __init__(self, label: str, log: list[str], **scope: Any) -> None:
        self.label, self.log = label, log
        self.prompts = scope.get("prompts")
        self.resources = scope.get("resources")

    async def on_get_prompt(self, call: PromptCall, call_next: GetPromptNext) -> PromptResult:
        self.log.append(f"enter {self.label}")
        try:
            return await call_next(call)
        finally:
            self.log.append(f"exit {self.label}")

    async def on_read_resource(self, read: ResourceRead, call_next: ReadResourceNext) -> ResourceResult:
        self.log.append(f"enter {self.label}")
        try:
            return await call_next(read)
        finally:
            self.log.append(f"exit {self.label}")


def build(*middleware: Middleware) -> Server:
    server = Server("s", middleware=middleware)
    server.add_prompt(lambda topic: f"about {topic}", name="ask", tags={"public"})
    server.add_prompt(lambda: "internal", name="admin_only")
    server.add_resource(lambda: "hello", "resource://motd", name="motd")
    server.add_resource(lambda id: f"item {id}", "item://{id}", name="item")
    return server


@MODES
async def test_the_first_middleware_added_is_outermost(mode: str) -> None:
    log: list[str] = []
    server = build(Layer("outer", log))
    server.add_middleware(Layer("inner", log))
    async with connect(server, mode=mode) as client:
        await client.get_prompt("ask", {"topic": "x"})
        assert log == ["enter outer", "enter inner", "exit inner", "exit outer"]
        log.clear()
        await client.read_resource("item://3")
        assert log == ["enter outer", "enter inner", "exit inner", "exit outer"]


class Rewrite(Middleware):
    async def on_get_prompt(self, call: PromptCall, call_next: GetPromptNext) -> PromptResult:
        result = await call_next(call.replace(arguments={"topic": call.arguments["topic"].upper()}))
        return PromptResult([*result.messages, Message("(reviewed)", role="assistant")])

    async def on_read_resource(self, read: ResourceRead, call_next: ReadResourceNext) -> ResourceResult:
        result = await call_next(read)
        return ResourceResult([TextResourceContents(read.uri, result.text + f" ({read.params})")])


@MODES
async def test_middleware_can_change_arguments_and_results(mode: str) -> None:
    async with connect(build(Rewrite()), mode=mode) as client:
        result = await client.get_prompt("ask", {"topic": "tea"})
        assert [m.content.text for m in result.messages] == ["about TEA", "(reviewed)"]
        contents = (await client.read_resource("item://9")).contents[0]
        assert contents.text == "item 9 ({'id': '9'})"


async def test_selectors_scope_prompt_and_resource_middleware() -> None:
    log: list[str] = []
    server = build(Layer("scoped", log, prompts="ask", resources="item://*"))
    await server.get_prompt("admin_only")
    await server.read_resource("resource://motd")
    assert log == []
    await server.get_prompt("ask", {"topic": "x"})
    await server.read_resource("item://1")
    assert log == ["enter scoped", "exit scoped"] * 2


@pytest.mark.parametrize(
    "scope",
    [[], lambda component: component.name in ("ask", "item")],
    ids=["an empty list", "a predicate"],
)
async def test_an_empty_list_or_a_predicate_scopes_prompts_and_resources_as_it_does_tools(scope: Any) -> None:
    """`prompts=[]` selects none (not all), and a predicate is asked about each prompt and resource."""
    log: list[str] = []
    server = build(Layer("scoped", log, prompts=scope, resources=scope))
    await server.get_prompt("admin_only")
    await server.read_resource("resource://motd")
    assert log == []
    await server.get_prompt("ask", {"topic": "x"})
    await server.read_resource("item://1")
    assert log == ([] if scope == [] else ["enter scoped", "exit scoped"] * 2)


def test_tag_selectors_apply_to_prompts() -> None:
    server = build()
    layer = Layer("tagged", [], prompts=Selector(tags={"public"}))
    assert layer.applies_to_prompt(server.prompts.local["ask"])
    assert not layer.applies_to_prompt(server.prompts.local["admin_only"])


def test_middleware_without_the_hooks_is_not_in_the_chain() -> None:
    class ToolsOnly(Middleware):
        async def on_call_tool(self, call: Any, call_next: Any) -> Any:
            return await call_next(call)

    server = build(ToolsOnly())
    layer = server.middleware[0]
    assert not layer.applies_to_prompt(server.prompts.local["ask"])
    assert not layer.applies_to_resource(server.resources.local["item://{id}"])


class Deadline(Middleware):
    """A stand-in for a timeout middleware: a prompt or read that takes too long fails clearly."""

    async def on_get_prompt(self, call: PromptCall, call_next: GetPromptNext) -> PromptResult:
        try:
            with anyio.fail_after(0.05):
                return await call_next(call)
        except TimeoutError:
            raise ToolError(f"Prompt '{call.prompt.name}' timed out") from None


@MODES
async def test_a_middleware_error_reaches_the_client(mode: str) -> None:
    server = Server("s", middleware=[Deadline()])

    @server.prompt
    async def slow() -> str:
        await anyio.sleep(5)
        return "late"

    async with connect(server, mode=mode) as client:
        with pytest.raises(mcp.MCPError, match="Prompt 'slow' timed out"):
            await client.get_prompt("slow")
