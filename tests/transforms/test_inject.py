"""InjectArgs and its sources: constants, callables, context, headers, claims, environment."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolweave import AuthInfo, Context, Server, Tool, TransformError
from toolweave.transforms import FromClaim, FromContext, FromEnv, FromHeader, InjectArgs, TransformArgs

from .conftest import Calls


def serve(tool: Tool, **options: Any) -> Server:
    server = Server("t", **options)
    server.add_tool(tool)
    return server


async def test_constant_is_injected_and_hidden(search_tool: Tool, calls: Calls) -> None:
    tool = InjectArgs(api_key="k-123").apply(search_tool)
    assert "api_key" not in tool.input_schema["properties"]
    await serve(tool).call_tool("search", {"q": "x"})
    assert calls[-1]["api_key"] == "k-123"


async def test_sync_callable_gets_the_context_and_visible_arguments(search_tool: Tool, calls: Calls) -> None:
    seen: list[Any] = []

    def key_for(ctx: Context, arguments: dict[str, Any]) -> str:
        seen.append((ctx.request_id, dict(arguments)))
        return f"key-for-{arguments['q']}"

    tool = InjectArgs(api_key=key_for).apply(search_tool)
    ctx = Context(request_id="r1")
    await serve(tool).call_tool("search", {"q": "cats"}, ctx=ctx)
    assert calls[-1]["api_key"] == "key-for-cats"
    assert seen == [("r1", {"q": "cats", "limit": 10, "debug": False})]


async def test_async_callable_is_awaited(search_tool: Tool, calls: Calls) -> None:
    async def fetch_key(ctx: Context) -> str:
        return "async-key"

    await serve(InjectArgs(api_key=fetch_key).apply(search_tool)).call_tool("search", {"q": "x"})
    assert calls[-1]["api_key"] == "async-key"


async def test_zero_argument_callable_is_called_per_call(search_tool: Tool, calls: Calls) -> None:
    numbers = iter(range(10))
    server = serve(InjectArgs(limit=lambda: next(numbers)).apply(search_tool))
    await server.call_tool("search", {"q": "x"})
    await server.call_tool("search", {"q": "x"})
    assert [c["limit"] for c in calls] == [0, 1]


async def test_callable_sees_arguments_under_its_own_names_after_a_later_rename(
    search_tool: Tool, calls: Calls
) -> None:
    tool = search_tool.with_transforms(
        InjectArgs(api_key=lambda ctx, args: "k-" + args["q"]), TransformArgs({"q": "query"})
    )
    await serve(tool).call_tool("search", {"query": "dogs"})
    assert calls[-1]["api_key"] == "k-dogs"


@pytest.mark.parametrize(
    ("source", "ctx"),
    [
        (FromContext("auth.subject"), Context(auth=AuthInfo(subject="u-7"))),
        (FromContext("state.tenant"), Context(state={"tenant": "u-7"})),
        (FromHeader("X-Tenant"), Context(headers={"x-tenant": "u-7"})),
        (FromClaim("org"), Context(auth=AuthInfo(claims={"org": "u-7"}))),
    ],
)
async def test_sources_read_the_request(search_tool: Tool, calls: Calls, source: Any, ctx: Context) -> None:
    await serve(InjectArgs(api_key=source).apply(search_tool)).call_tool("search", {"q": "x"}, ctx=ctx)
    assert calls[-1]["api_key"] == "u-7"


async def test_env_is_read_at_call_time(search_tool: Tool, calls: Calls, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(InjectArgs(api_key=FromEnv("TW_TEST_KEY")).apply(search_tool))
    monkeypatch.setenv("TW_TEST_KEY", "first")
    await server.call_tool("search", {"q": "x"})
    monkeypatch.setenv("TW_TEST_KEY", "rotated")
    await server.call_tool("search", {"q": "x"})
    assert [c["api_key"] for c in calls] == ["first", "rotated"]


async def test_missing_env_var_is_a_clear_error_naming_the_variable(
    search_tool: Tool, calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TW_MISSING_KEY", raising=False)
    tool = InjectArgs(api_key=FromEnv("TW_MISSING_KEY")).apply(search_tool)
    result = await serve(tool, mask_error_details=False).call_tool("search", {"q": "x"})
    assert result.is_error and "TW_MISSING_KEY" in result.text and "'api_key'" in result.text
    assert calls == []


async def test_missing_env_var_is_masked_for_clients_and_logged_for_operators(
    search_tool: Tool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("TW_MISSING_KEY", raising=False)
    tool = InjectArgs(api_key=FromEnv("TW_MISSING_KEY")).apply(search_tool)
    with caplog.at_level(logging.ERROR):
        result = await serve(tool).call_tool("search", {"q": "x"})
    assert result.is_error and "TW_MISSING_KEY" not in result.text
    assert "TW_MISSING_KEY" in caplog.text


async def test_source_default_is_used_when_the_value_is_missing(search_tool: Tool, calls: Calls) -> None:
    tool = InjectArgs(api_key=FromContext("auth.subject", default="anonymous")).apply(search_tool)
    await serve(tool).call_tool("search", {"q": "x"})
    assert calls[-1]["api_key"] == "anonymous"


async def test_missing_context_value_fails_the_call(search_tool: Tool, calls: Calls) -> None:
    tool = InjectArgs(api_key=FromContext("auth.subject")).apply(search_tool)
    result = await serve(tool, mask_error_details=False).call_tool("search", {"q": "x"})
    assert result.is_error and "auth.subject" in result.text and calls == []


async def test_injected_value_is_converted_to_the_parameter_type(search_tool: Tool, calls: Calls) -> None:
    await serve(InjectArgs(limit=lambda: "25").apply(search_tool)).call_tool("search", {"q": "x"})
    assert calls[-1]["limit"] == 25


def test_injecting_a_missing_argument_names_tool_and_argument(search_tool: Tool) -> None:
    with pytest.raises(TransformError, match=r"tool 'search', argument 'nope'"):
        InjectArgs(nope="x").apply(search_tool)


def test_a_callable_requiring_more_than_ctx_and_arguments_is_refused_when_applied(search_tool: Tool) -> None:
    """It was taken, and every call failed: it is called with at most (ctx, arguments)."""

    def key(ctx: Context, arguments: dict[str, Any], region: str) -> str:
        return region

    says = r"^tool 'search', argument 'api_key': the function .*key requires 3 arguments; it is called with"
    with pytest.raises(TransformError, match=says):
        InjectArgs(api_key=key).apply(search_tool)


def test_injecting_an_already_hidden_argument_says_so(search_tool: Tool) -> None:
    tool = InjectArgs(api_key="a").apply(search_tool)
    with pytest.raises(TransformError, match="already hidden"):
        InjectArgs(api_key="b").apply(tool)


def test_repr_and_describe_never_show_constants() -> None:
    inject = InjectArgs(api_key="sk-live-123", user=FromEnv("USER_ID"))
    assert "sk-live-123" not in repr(inject) and "sk-live-123" not in inject.describe()
    assert "USER_ID" in inject.describe()


async def test_schema_tool_injection(schema_tool: Tool, calls: Calls) -> None:
    tool = InjectArgs(credential=lambda ctx: {"token": "server-token"}).apply(schema_tool)
    assert "Credential" not in tool.input_schema["$defs"]
    await serve(tool).call_tool("lookup", {"q": "x"})
    assert calls[-1]["credential"] == {"token": "server-token"}
