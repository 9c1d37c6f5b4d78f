"""Forward: a custom signature in front of a tool; forward() maps, forward_raw() does not."""

from __future__ import annotations

import pytest

from toolweave import Server, Tool, TransformError
from toolweave.transforms import Forward, InjectArgs, TransformArgs, forward, forward_raw

from .conftest import Calls


def serve(tool: Tool) -> Server:
    server = Server("t", mask_error_details=False)
    server.add_tool(tool)
    return server


async def test_custom_signature_is_validated_against_itself(search_tool: Tool, calls: Calls) -> None:
    async def top(query: str, n: int = 3):  # type: ignore[no-untyped-def]
        return await forward(q=query, limit=min(n, 5))

    tool = Forward(top).apply(search_tool)
    assert list(tool.input_schema["properties"]) == ["query", "n"]
    server = serve(tool)
    bad = await server.call_tool("search", {"query": "x", "n": "many"})
    assert bad.is_error and "n" in bad.text and calls == []
    await server.call_tool("search", {"query": "x", "n": "9"})
    assert calls[-1]["limit"] == 5


async def test_forward_goes_through_the_parent_transforms(search_tool: Tool, calls: Calls) -> None:
    parent = search_tool.with_transforms(TransformArgs({"q": "query"}), InjectArgs(api_key="server-key"))

    async def shout(text: str):  # type: ignore[no-untyped-def]
        return await forward(query=text.upper())

    await serve(Forward(shout).apply(parent)).call_tool("search", {"text": "hi"})
    assert calls[-1]["q"] == "HI" and calls[-1]["api_key"] == "server-key"


async def test_forward_cannot_set_hidden_arguments(search_tool: Tool, calls: Calls) -> None:
    parent = InjectArgs(api_key="server-key").apply(search_tool)

    async def sneaky(text: str):  # type: ignore[no-untyped-def]
        return await forward(q=text, api_key="mine")

    result = await serve(Forward(sneaky).apply(parent)).call_tool("search", {"text": "hi"})
    assert result.is_error and "api_key: unexpected argument" in result.text and calls == []


async def test_forward_raw_uses_the_base_names(search_tool: Tool, calls: Calls) -> None:
    parent = TransformArgs({"q": "query"}).apply(search_tool)

    async def raw(text: str):  # type: ignore[no-untyped-def]
        return await forward_raw(q=text, debug=True)

    await serve(Forward(raw).apply(parent)).call_tool("search", {"text": "hi"})
    assert calls[-1]["q"] == "hi" and calls[-1]["debug"] is True


async def test_client_cannot_spoof_the_parents_hidden_argument_through_forward(search_tool: Tool) -> None:
    parent = InjectArgs(api_key="server-key").apply(search_tool)

    async def plain(text: str):  # type: ignore[no-untyped-def]
        return await forward(q=text)

    result = await serve(Forward(plain).apply(parent)).call_tool("search", {"text": "x", "API_KEY": "mine"})
    assert result.is_error and "API_KEY: unexpected argument" in result.text


async def test_forward_outside_a_forward_function_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="inside a Forward function"):
        await forward(x=1)


async def test_keeps_parent_description_and_output_schema(search_tool: Tool) -> None:
    async def f(query: str):  # type: ignore[no-untyped-def]
        return await forward(q=query)

    tool = Forward(f).apply(search_tool)
    assert tool.description == search_tool.description and tool.output_schema == search_tool.output_schema


async def test_argument_transforms_apply_on_top_of_a_forward(search_tool: Tool, calls: Calls) -> None:
    async def f(query: str, scope: str = "all"):  # type: ignore[no-untyped-def]
        return await forward(q=f"{scope}:{query}")

    tool = search_tool.with_transforms(Forward(f), InjectArgs(scope="docs"))
    await serve(tool).call_tool("search", {"query": "x"})
    assert calls[-1]["q"] == "docs:x"


def test_a_sync_function_is_refused_at_composition(search_tool: Tool) -> None:
    def sync(query: str) -> str:
        return query

    with pytest.raises(TransformError, match=r"tool 'search': Forward needs an async function"):
        Forward(sync).apply(search_tool)


def test_bad_forward_signature_fails_at_composition(search_tool: Tool) -> None:
    async def star(*args):  # type: ignore[no-untyped-def]
        return None

    with pytest.raises((TypeError, TransformError), match="args"):
        Forward(star).apply(search_tool)
