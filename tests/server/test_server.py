"""Server: registering tools, duplicates, visibility, the compiled catalog, in-process calls."""

from __future__ import annotations

import inspect
import logging

import pytest

from toolweave import DuplicateError, Server, Tool, UnknownTool, tool
from toolweave.testing import fake_tool


def test_the_decorator_works_bare_called_and_with_options() -> None:
    server = Server("s")

    @server.tool
    def a() -> None: ...

    @server.tool()
    def b() -> None: ...

    @server.tool(name="c_renamed", description="C")
    def c() -> None: ...

    assert [t.name for t in server.catalog.tools] == ["a", "b", "c_renamed"]
    assert server.catalog.entries["c_renamed"].tool.description == "C"


def test_the_decorator_returns_the_original_function_with_its_tool() -> None:
    server = Server("s")

    def add(a: int, b: int = 1) -> int:
        """Add."""
        return a + b

    decorated = server.tool(add)
    assert decorated(2, b=3) == 5
    assert decorated == add and decorated.__wrapped__ is add
    assert inspect.signature(decorated) == inspect.signature(add)
    assert decorated.__name__ == "add" and decorated.__doc__ == "Add."
    assert isinstance(decorated.tool, Tool) and decorated.tool.name == "add"


def test_toolweave_tool_makes_a_tool_without_a_server_and_add_tool_takes_it() -> None:
    @tool(tags={"x"})
    def ping() -> str:
        return "pong"

    assert ping() == "pong" and ping.tool.tags == frozenset({"x"})
    server = Server("s")
    assert server.add_tool(ping) is ping.tool
    assert server.add_tool(lambda: 1, name="one").name == "one"


def test_duplicate_names_are_errors_by_default() -> None:
    server = Server("s")
    server.add_tool(fake_tool("t"))
    with pytest.raises(DuplicateError, match="already has a tool named 't'"):
        server.add_tool(fake_tool("t"))


@pytest.mark.parametrize(("policy", "winner"), [("replace", "second"), ("warn", "second"), ("ignore", "first")])
def test_duplicate_policies(policy: str, winner: str, caplog: pytest.LogCaptureFixture) -> None:
    server = Server("s", on_duplicate=policy)  # type: ignore[arg-type]
    server.add_tool(fake_tool("t", description="first"))
    with caplog.at_level(logging.WARNING):
        server.add_tool(fake_tool("t", description="second"))
    assert server.catalog.entries["t"].tool.description == winner
    assert ("was replaced" in caplog.text) is (policy == "warn")


@pytest.mark.parametrize("name", ["", "has space", "slash/name", "x" * 129, "ünïcode"])
def test_invalid_tool_names_are_rejected(name: str) -> None:
    with pytest.raises(ValueError, match="is not valid"):
        Server("s").add_tool(fake_tool(name))


async def test_remove_tool() -> None:
    server = Server("s")
    server.add_tool(fake_tool("t"))
    server.remove_tool("t")
    assert await server.list_tools() == []
    with pytest.raises(UnknownTool):
        server.remove_tool("t")


async def test_disabled_tools_are_neither_listed_nor_callable() -> None:
    server = Server("s")
    server.add_tool(fake_tool("a", tags={"admin"}))
    server.add_tool(fake_tool("b"))
    server.add_tool(fake_tool("c", enabled=False))
    assert [t.name for t in await server.list_tools()] == ["a", "b"]
    server.disable(tags={"admin"})
    server.disable("b")
    assert await server.list_tools() == []
    with pytest.raises(UnknownTool):
        await server.call_tool("a")
    server.enable("b", "c", tags={"admin"})
    assert [t.name for t in await server.list_tools()] == ["a", "b", "c"]


@pytest.mark.parametrize("method", ["disable", "enable"])
async def test_a_single_string_as_tags_is_refused_not_read_as_its_characters(method: str) -> None:
    """`disable(tags="admin")` hid the tags 'a', 'd', 'm', ...: the admin tools stayed listed."""
    server = Server("s")
    server.add_tool(fake_tool("a", tags={"admin"}))
    with pytest.raises(TypeError, match=r"server 's': tags must be a list .* \(write \['admin'\]\)"):
        getattr(server, method)(tags="admin")
    assert [t.name for t in await server.list_tools()] == ["a"]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"name": None}, r"^a server name must be a string, not None$"),
        ({"instructions": 5}, r"^server 's': instructions must be a string, not 5$"),
        ({"version": 1}, r"^server 's': version must be a string, not 1$"),
        ({"page_size": 0}, r"^server 's': page_size must be a whole number above 0 or None, not 0$"),
        ({"page_size": "10"}, r"^server 's': page_size must be a whole number above 0 or None, not '10'$"),
    ],
)
def test_server_options_of_the_wrong_kind_are_refused_when_it_is_made(options: dict[str, object], says: str) -> None:
    """Each was taken: a name, instructions or version not a string then failed every client's
    handshake, and `page_size=0` listed no tools at all."""
    with pytest.raises((TypeError, ValueError), match=says):
        Server(**{"name": "s", **options})  # type: ignore[arg-type]


def test_the_catalog_is_compiled_once_and_recompiled_on_change() -> None:
    server = Server("s")
    server.add_tool(fake_tool("a"))
    first = server.catalog
    assert server.catalog is first
    server.add_tool(fake_tool("b"))
    assert server.catalog is not first


def test_listeners_hear_every_change() -> None:
    server = Server("s")
    heard: list[str] = []
    unsubscribe = server.subscribe(lambda: heard.append("changed"))
    server.add_tool(fake_tool("a"))
    server.disable("a")
    server.enable("a")
    server.remove_tool("a")
    unsubscribe()
    server.add_tool(fake_tool("b"))
    assert heard == ["changed"] * 4


async def test_in_process_calls_validate_once_at_the_boundary() -> None:
    server = Server("s")
    seen = []

    @server.tool
    async def add(a: int, b: int) -> int:
        seen.append((a, b))
        return a + b

    ok = await server.call_tool("add", {"a": "2", "b": 3})
    bad = await server.call_tool("add", {"a": "two", "c": 1})
    assert ok.structured_content == {"result": 5} and seen == [(2, 3)]
    assert bad.is_error and "- c: unexpected argument" in bad.text and "- a: " in bad.text
    assert "- b: Field required" in bad.text and len(seen) == 1


async def test_extra_arguments_can_be_ignored() -> None:
    server = Server("s", extra_args="ignore")
    server.add_tool(lambda a: a, name="echo")
    assert (await server.call_tool("echo", {"a": "x", "zz": 1})).text == "x"


def test_server_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="on_duplicate"):
        Server("s", on_duplicate="explode")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="extra_args"):
        Server("s", extra_args="maybe")  # type: ignore[arg-type]


@pytest.mark.parametrize("enabled", [True, False])
def test_compiling_the_catalog_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    import gc

    server = Server("gc")
    server.add_tool(fake_tool("a"))
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert [t.name for t in server.catalog.tools] == ["a"]
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_transform_that_renames_a_local_tool_to_an_invalid_name_is_still_refused() -> None:
    class BadName:
        def apply(self, tool: Tool) -> Tool:
            return tool.derive(self, name="no spaces allowed")

    server = Server("names")
    server.add_tool(fake_tool("a"))
    server.add_transform(BadName())
    with pytest.raises(ValueError, match="not valid"):
        server.catalog  # noqa: B018
