"""The middleware base: the ordering rule, selectors, per-tool chains, mounts."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Server, ToolAnnotations, ToolResult
from toolweave.core.content import TextContent
from toolweave.middleware import (
    Cache,
    CircuitBreaker,
    ConcurrencyLimit,
    Logging,
    Middleware,
    Progress,
    RateLimit,
    Retry,
    Selector,
    Timeout,
    middleware,
)
from toolweave.testing import RecordingMiddleware, connect, fake_tool

SAFE = ToolAnnotations(read_only_hint=True, idempotent_hint=True)


def _server(*tools: str, **options: Any) -> Server:
    server = Server("base", **options)
    for name in tools:
        server.add_tool(fake_tool(name, annotations=SAFE))
    return server


async def test_first_added_middleware_is_outermost() -> None:
    log: list[str] = []
    outer, middle, inner = (RecordingMiddleware(label, log) for label in ("outer", "middle", "inner"))
    server = _server("echo", middleware=[outer])
    server.add_middleware(middle, inner)
    await server.call_tool("echo", {})
    assert log == ["enter outer", "enter middle", "enter inner", "exit inner", "exit middle", "exit outer"]


async def test_chain_lists_layers_outermost_first() -> None:
    first, second = RecordingMiddleware("first"), RecordingMiddleware("second")
    server = _server("echo", middleware=[first, second])
    assert server.catalog.entries["echo"].chain == (first, second)


def test_a_middleware_whose_selector_does_not_match_adds_nothing() -> None:
    server = _server("echo", middleware=[RecordingMiddleware(tools="other_*"), Logging(tools="other_*")])
    entry = server.catalog.entries["echo"]
    assert entry.chain == ()
    assert entry.handler is None


def test_a_middleware_that_overrides_nothing_adds_nothing() -> None:
    server = _server("echo", middleware=[Middleware()])
    assert server.catalog.entries["echo"].handler is None


@pytest.mark.parametrize(
    "make",
    [
        Logging,
        lambda **kw: Timeout(5, **kw),
        Progress,
        Retry,
        lambda **kw: RateLimit(10, **kw),
        lambda **kw: ConcurrencyLimit(2, **kw),
        CircuitBreaker,
        Cache,
    ],
    ids=[
        "Logging",
        "Timeout",
        "Progress",
        "Retry",
        "RateLimit",
        "ConcurrencyLimit",
        "CircuitBreaker",
        "Cache",
    ],
)
@pytest.mark.parametrize(
    "tools",
    ["gh_*", ["gh_*", "git_*"], Selector("gh_*"), lambda tool: tool.name.startswith("gh_")],
    ids=["glob", "list", "Selector", "predicate"],
)
def test_every_builtin_takes_a_tools_selector(make: Any, tools: Any) -> None:
    server = _server("gh_search", "local", middleware=[make(tools=tools)])
    entries = server.catalog.entries
    assert len(entries["gh_search"].chain) == 1
    assert entries["local"].chain == ()


def test_selectors_match_tags_and_annotations() -> None:
    server = Server("tags")
    server.add_tool(fake_tool("tagged", tags={"billing"}))
    server.add_tool(fake_tool("safe", annotations=SAFE))
    server.add_tool(fake_tool("plain"))
    by_tag, by_hint = (
        RecordingMiddleware("tag", tools=Selector(tags="billing")),
        RecordingMiddleware("hint", tools=Selector(read_only=True)),
    )
    server.add_middleware(by_tag, by_hint)
    chains = {name: entry.chain for name, entry in server.catalog.entries.items()}
    assert chains == {"tagged": (by_tag,), "safe": (by_hint,), "plain": ()}


async def test_function_middleware_wraps_calls_of_selected_tools() -> None:
    @middleware(tools="shout")
    async def upper(call: Any, call_next: Any) -> ToolResult:
        result = await call_next(call.replace(arguments={"text": call.arguments["text"] + "!"}))
        return ToolResult([TextContent(result.structured_content["text"].upper())])

    server = Server("fn", middleware=[upper])
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    server.add_tool(fake_tool("shout", schema))
    server.add_tool(fake_tool("quiet", schema))
    assert (await server.call_tool("shout", {"text": "hi"})).text == "HI!"
    assert (await server.call_tool("quiet", {"text": "hi"})).structured_content == {"text": "hi"}
    assert upper.name == "upper"


def test_for_tool_may_return_a_variant_bound_to_the_tool() -> None:
    timeout = Timeout(per_tool={"slow": 9})
    server = _server("slow", "fast", middleware=[timeout])
    (bound,) = server.catalog.entries["slow"].chain
    assert bound.name == "Timeout(9s)"
    assert server.catalog.entries["fast"].handler is None


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_mounted_server_middleware_runs_inside_the_parents_around_its_own_tools(mode: str) -> None:
    log: list[str] = []
    child = _server("get", middleware=[RecordingMiddleware("child", log)])
    parent = _server("local", middleware=[RecordingMiddleware("parent", log)])
    parent.mount(child, prefix="billing")
    async with connect(parent, mode=mode) as client:
        await client.call_tool("billing_get", {})
        assert log == ["enter parent", "enter child", "exit child", "exit parent"]
        log.clear()
        await client.call_tool("local", {})
        assert log == ["enter parent", "exit parent"]


@pytest.mark.parametrize("bad", [5, ["gh_*", 3]])
def test_a_bad_tools_selector_is_refused_clearly(bad: Any) -> None:
    with pytest.raises(TypeError, match="tools= takes a glob"):
        Logging(tools=bad)
