"""Middleware used wrongly is named: refused when added if it is not one, named when it returns no `ToolResult`."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from toolweave import Server, ToolResult
from toolweave.middleware import Middleware, Timeout, middleware
from toolweave.testing import connect


def echo(x: int) -> int:
    return x


class ReturnsNone(Middleware):
    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        await call_next(call)  # forgot `return`


class NoAwait(Middleware):
    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        return call_next(call)  # forgot `await`


class ReturnsText(Middleware):
    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        return (await call_next(call)).text


class ReturnsDict(Middleware):
    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        return {"hello": 1}


class Audit(Middleware):
    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        return await call_next(call)


def served(*layers: Middleware, mask: bool = True) -> Server:
    server = Server("s", middleware=layers, mask_error_details=mask)
    server.add_tool(echo)
    return server


@pytest.mark.parametrize(
    ("layer", "got"),
    [(ReturnsNone(), "None"), (NoAwait(), "a coroutine"), (ReturnsText(), "a str"), (ReturnsDict(), "a dict")],
)
async def test_a_result_that_is_not_a_tool_result_is_an_error_naming_the_middleware(layer: Any, got: str) -> None:
    result = await served(layer, mask=False).call_tool("echo", {"x": 1})
    assert result.is_error
    assert f"the middleware of tool 'echo' ({type(layer).__name__}) returned {got}, not a ToolResult" in result.text


async def test_the_message_names_the_whole_chain_and_the_likely_slip() -> None:
    result = await served(Audit(), Timeout(5), ReturnsNone(), mask=False).call_tool("echo", {"x": 1})
    assert "(Audit, Timeout(5s), ReturnsNone) returned None" in result.text
    assert "does each return `await call_next(call)`?" in result.text


async def test_masked_the_client_gets_the_incident_and_the_log_names_the_middleware(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="toolweave.errors"):
        async with connect(served(ReturnsNone())) as client:
            result = await client.call_tool("echo", {"x": 1})
    assert result.is_error and "incident" in result.content[0].text
    assert "ReturnsNone" not in result.content[0].text
    assert "the middleware of tool 'echo' (ReturnsNone) returned None" in caplog.text


async def test_a_forgotten_await_leaves_no_coroutine_unawaited(recwarn: pytest.WarningsRecorder) -> None:
    import gc

    result = await served(NoAwait(), mask=False).call_tool("echo", {"x": 1})
    gc.collect()
    assert "returned a coroutine" in result.text
    assert not [w for w in recwarn if "never awaited" in str(w.message)]


async def test_a_tool_result_subclass_goes_through() -> None:
    class Tagged(ToolResult):
        pass

    class Tags(Middleware):
        async def on_call_tool(self, call: Any, call_next: Any) -> Any:
            result = await call_next(call)
            return Tagged(result.content, result.structured_content)

    result = await served(Tags()).call_tool("echo", {"x": 1})
    assert type(result) is Tagged and not result.is_error and result.text == "1"


async def test_a_mounted_childs_middleware_is_named_under_a_parent_without_any() -> None:
    gateway = Server("gateway", mask_error_details=False)
    gateway.mount(served(ReturnsNone()), prefix="c")
    result = await gateway.call_tool("c_echo", {"x": 1})
    assert result.is_error and "the middleware of tool 'echo' (ReturnsNone) returned None" in result.text


async def audit(call: Any, call_next: Any) -> Any:
    return await call_next(call)


@pytest.mark.parametrize(
    ("candidate", "said"),
    [
        (audit, "got function 'audit' (decorate it with @middleware)"),
        (Timeout, "got the class Timeout: pass an instance, Timeout(...)"),
        (None, "got None"),
        ("logging", "got str 'logging'"),
    ],
)
def test_add_middleware_refuses_what_is_not_a_middleware_instance(candidate: Any, said: str) -> None:
    server = Server("s", middleware=[Audit()])
    with pytest.raises(TypeError, match=re.escape(f"expected a Middleware instance, {said}")):
        server.add_middleware(Audit(), candidate)
    assert [layer.name for layer in server.middleware] == ["Audit"]  # nothing added


@pytest.mark.parametrize("candidate", [audit, Timeout, None, "logging"])
def test_server_refuses_what_is_not_a_middleware_instance(candidate: Any) -> None:
    with pytest.raises(TypeError, match="expected a Middleware instance"):
        Server("s", middleware=[candidate])


def test_server_refuses_one_middleware_not_in_a_list() -> None:
    with pytest.raises(TypeError, match=r"takes a list of Middleware, not one Audit: wrap it in \[...\]"):
        Server("s", middleware=Audit())  # type: ignore[arg-type]


def test_a_decorated_function_is_accepted() -> None:
    server = Server("s")
    server.add_middleware(middleware(audit))
    assert [layer.name for layer in server.middleware] == ["audit"]


class ListsNone(Middleware):
    async def on_list_tools(self, tools: Any, ctx: Any) -> Any:
        tools.sort(key=lambda tool: tool.name)  # sorted in place, and forgot `return tools`


class ListsNames(Middleware):
    async def on_list_tools(self, tools: Any, ctx: Any) -> Any:
        return [tool.name for tool in tools]


@pytest.mark.parametrize(("layer", "got"), [(ListsNone(), "None"), (ListsNames(), "a list holding a str")])
async def test_a_listing_that_is_not_a_list_of_tools_is_an_error_naming_the_middleware(
    layer: Middleware, got: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = Server("s", middleware=[layer])
    server.add_tool(echo)
    said = f"the middleware {layer.name} returned {got} from on_list_tools, not a list of Tool"
    with pytest.raises(TypeError, match=re.escape(said)):
        await server.list_tools()
    async with connect(server) as client:
        with pytest.raises(Exception, match=r"Internal error \(incident"):
            await client.list_tools()
    assert said in caplog.text


async def test_a_listing_returned_as_a_tuple_is_taken() -> None:
    class Reversed(Middleware):
        async def on_list_tools(self, tools: Any, ctx: Any) -> Any:
            return tuple(reversed(tools))

    server = Server("s", middleware=[Reversed()])
    server.add_tool(echo)
    server.add_tool(lambda: 1, name="one")
    assert [tool.name for tool in await server.list_tools()] == ["one", "echo"]


def _sync_audit(call: Any, call_next: Any) -> Any:
    return call_next(call)


async def _one_argument(call: Any) -> Any: ...


@pytest.mark.parametrize(
    ("fn", "said"),
    [
        (_sync_audit, "@middleware takes an async function: write async def _sync_audit(call, call_next)"),
        (_one_argument, "@middleware: _one_argument must take two arguments, (call, call_next)"),
    ],
)
def test_middleware_refuses_a_function_that_would_fail_every_call(fn: Any, said: str) -> None:
    """Each was taken, and every call through it failed as an internal error (a sync function's
    `ToolResult` or `call_next` coroutine awaited by the chain, a missing `call_next`)."""
    with pytest.raises(TypeError, match=re.escape(said)):
        middleware(fn)
    with pytest.raises(TypeError, match=re.escape(said)):
        middleware(tools="echo")(fn)
