"""Mounting local servers: prefixes, depth, live changes, context, clashes, cycles, masking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from toolweave import Context, DuplicateError, Server, Tool, ToolResult, get_context
from toolweave.core.masking import ErrorPolicy
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.testing import RecordingMiddleware, connect

from .changes import names, watched

MODES = ["auto", "legacy"]


def billing() -> Server:
    server = Server("billing")

    @server.tool
    def get(invoice: int) -> str:
        """Fetch an invoice."""
        return f"invoice {invoice}"

    return server


def chain(depth: int) -> tuple[Server, Server]:
    """`depth` servers mounted in a line under a top one; returns (top, deepest)."""
    top = deepest = Server("top")
    for level in range(depth):
        child = Server(f"level{level}")
        deepest.mount(child, prefix=f"l{level}")
        deepest = child

    @deepest.tool
    def ping(text: str) -> str:
        return f"pong {text}"

    return top, deepest


@pytest.mark.parametrize("mode", MODES)
async def test_mounted_tool_is_listed_and_called_under_its_prefix(mode: str) -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), prefix="billing")
    async with connect(gateway, mode=mode) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["billing_get"]
        result = await client.call_tool("billing_get", {"invoice": 7})
    assert result.content[0].text == "invoice 7"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("depth", [1, 3])
async def test_nested_mounts_route_to_the_deepest_tool(mode: str, depth: int) -> None:
    top, _ = chain(depth)
    exposed = "_".join(f"l{level}" for level in range(depth)) + "_ping"
    async with connect(top, mode=mode) as client:
        assert await names(client) == [exposed]
        result = await client.call_tool(exposed, {"text": "hi"})
    assert result.content[0].text == "pong hi"


@pytest.mark.usefixtures("untraced")
async def test_nested_mount_routes_from_one_catalog_entry() -> None:
    top, deepest = chain(3)
    entry = top.catalog.get("l0_l1_l2_ping")
    assert entry.tool.run is deepest.catalog.get("ping").tool.run


async def test_mount_without_prefix_keeps_names() -> None:
    gateway = Server("gateway")
    gateway.mount(billing())
    assert [tool.name for tool in gateway.catalog.tools] == ["get"]
    assert (await gateway.call_tool("get", {"invoice": 1})).text == "invoice 1"


async def test_separator_is_configurable() -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), prefix="billing", separator=".")
    assert [tool.name for tool in gateway.catalog.tools] == ["billing.get"]


@pytest.mark.parametrize("separator", ["/", " ", ":"])
def test_invalid_separator_is_refused(separator: str) -> None:
    with pytest.raises(ValueError, match="separator"):
        Server("gateway").mount(billing(), prefix="billing", separator=separator)


def test_invalid_prefix_is_refused() -> None:
    with pytest.raises(ValueError, match=r"mount prefix name .bad prefix. is not valid"):
        Server("gateway").mount(billing(), prefix="bad prefix")


def test_too_long_exposed_name_is_refused_naming_its_origin() -> None:
    child = Server("child")
    child.add_tool(lambda: 1, name="t" * 120)
    with pytest.raises(ValueError, match=r"is not valid.*from mount 'pppppppp' tool"):
        Server("gateway").mount(child, prefix="p" * 8)


def test_mounting_a_non_server_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="can only mount"):
        Server("gateway").mount(object(), prefix="x")  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
async def test_live_changes_in_a_child_reach_the_parents_clients(mode: str) -> None:
    gateway = Server("gateway")
    child = billing()
    gateway.mount(child, prefix="billing")
    async with watched(gateway, mode) as (client, changes):
        child.add_tool(lambda: "paid", name="pay")
        await changes.wait_for(1)
        assert await names(client) == ["billing_get", "billing_pay"]
        child.disable("get")
        await changes.wait_for(2)
        assert await names(client) == ["billing_pay"]
        child.enable("get")
        await changes.wait_for(3)
        assert await names(client) == ["billing_get", "billing_pay"]
        child.remove_tool("pay")
        await changes.wait_for(4)
        assert await names(client) == ["billing_get"]
        assert (await client.call_tool("billing_get", {"invoice": 2})).content[0].text == "invoice 2"


@pytest.mark.parametrize("mode", MODES)
async def test_live_changes_three_levels_down_reach_the_top(mode: str) -> None:
    top, deepest = chain(3)
    async with watched(top, mode) as (client, changes):
        deepest.add_tool(lambda: "new", name="fresh")
        await changes.wait_for(1)
        assert "l0_l1_l2_fresh" in await names(client)
        result = await client.call_tool("l0_l1_l2_fresh", {})
    assert result.content[0].text == "new"


async def test_import_tools_copies_once() -> None:
    gateway = Server("gateway")
    child = billing()
    copies = gateway.import_tools(child, prefix="billing")
    child.add_tool(lambda: "paid", name="pay")
    assert [tool.name for tool in copies] == ["billing_get"]
    assert list(gateway.local_tools) == ["billing_get"]
    assert [tool.name for tool in gateway.catalog.tools] == ["billing_get"]
    assert (await gateway.call_tool("billing_get", {"invoice": 3})).text == "invoice 3"


def test_import_tools_clash_is_refused_before_copying() -> None:
    gateway = Server("gateway")
    gateway.add_tool(lambda: 1, name="billing_get")
    with pytest.raises(DuplicateError, match=r"\['billing_get'\]"):
        gateway.import_tools(billing(), prefix="billing")
    assert list(gateway.local_tools) == ["billing_get"]


def test_clash_with_a_local_tool_names_both_origins() -> None:
    gateway = Server("gateway")
    gateway.add_tool(lambda: 1, name="billing_get")
    with pytest.raises(DuplicateError) as raised:
        gateway.mount(billing(), prefix="billing")
    message = str(raised.value)
    assert "local tool 'billing_get'" in message
    assert "mount 'billing' tool 'get' (server 'billing')" in message
    assert gateway.mounts == ()
    assert [tool.name for tool in gateway.catalog.tools] == ["billing_get"]


async def test_a_local_tool_claiming_a_mounted_name_is_refused_when_added_and_nothing_changes() -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), prefix="billing")
    gateway.add_tool(lambda: "other", name="other")
    with pytest.raises(DuplicateError) as raised:
        gateway.add_tool(lambda: "local", name="billing_get")
    assert "local tool 'billing_get'" in str(raised.value) and "mount 'billing'" in str(raised.value)
    assert list(gateway.local_tools) == ["other"]
    assert (await gateway.call_tool("other", {})).text == "other"  # the server still answers
    assert (await gateway.call_tool("billing_get", {"invoice": 3})).text == "invoice 3"


def test_tools_imported_beside_a_mount_that_claims_one_of_their_names_are_all_taken_back() -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), prefix="billing")
    other = Server("other")
    other.add_tool(lambda: 1, name="list")
    other.add_tool(lambda: 2, name="get")
    with pytest.raises(DuplicateError, match="claimed twice"):
        gateway.import_tools(other, prefix="billing")
    assert list(gateway.local_tools) == []
    assert [tool.name for tool in gateway.catalog.tools] == ["billing_get"]


def test_clash_arising_later_is_reported_when_the_catalog_compiles() -> None:
    gateway = Server("gateway")
    child = Server("child")
    gateway.add_tool(lambda: 1, name="billing_get")
    gateway.mount(child, prefix="billing")
    child.add_tool(lambda: 2, name="get")
    with pytest.raises(DuplicateError, match="claimed twice"):
        gateway.catalog  # noqa: B018


@pytest.mark.parametrize(("policy", "winner"), [("replace", 2), ("warn", 2), ("ignore", 1)])
async def test_clash_follows_on_duplicate(policy: Any, winner: int) -> None:
    gateway = Server("gateway", on_duplicate=policy)
    gateway.add_tool(lambda: "1", name="billing_get")
    child = Server("billing")
    child.add_tool(lambda: "2", name="get")
    gateway.mount(child, prefix="billing")
    assert (await gateway.call_tool("billing_get", {})).text == str(winner)


def test_mounting_a_server_into_itself_is_refused() -> None:
    server = Server("loop")
    with pytest.raises(ValueError, match="it would contain itself"):
        server.mount(server, prefix="me")


def test_mount_cycle_is_refused_naming_the_path() -> None:
    a, b, c = Server("a"), Server("b"), Server("c")
    a.mount(b, prefix="b")
    b.mount(c, prefix="c")
    with pytest.raises(ValueError, match=r"'c' -> 'a' -> 'b' -> 'c'"):
        c.mount(a, prefix="a")
    with pytest.raises(ValueError, match="it would contain itself"):
        c.import_tools(a, prefix="a")


def test_unmounting_a_mount_that_is_not_there_is_refused_naming_it() -> None:
    """A second `unmount`, or one on another server, names the mount and the server."""
    gateway, other = Server("gateway"), Server("other")
    mounted = gateway.mount(billing(), prefix="billing")
    gateway.unmount(mounted)
    for server in (gateway, other):
        named = rf"Mount\(Server\('billing'\), prefix='billing'\) is not mounted on server '{server.name}'"
        with pytest.raises(ValueError, match=named):
            server.unmount(mounted)


async def test_the_same_context_flows_into_mounted_tools() -> None:
    seen: list[Context] = []
    child = Server("child")

    @child.tool
    def probe(ctx: Context) -> str:
        seen.append(ctx)
        assert get_context() is ctx
        return str(ctx.state.get("tenant"))

    class SetTenant(Middleware):
        async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            call.ctx.state["tenant"] = "acme"
            call.ctx.deadline = 123.0
            return await call_next(call)

    top = Server("top", middleware=[SetTenant()])
    middle = Server("middle")
    middle.mount(child, prefix="c")
    top.mount(middle, prefix="m")
    ctx = Context(server=top)
    result = await top.call_tool("m_c_probe", {}, ctx=ctx)
    assert result.text == "acme"
    assert seen == [ctx] and seen[0] is ctx and seen[0].deadline == 123.0


@pytest.mark.parametrize("mode", MODES)
async def test_request_state_set_by_parent_middleware_reaches_the_child_through_a_client(mode: str) -> None:
    child = Server("child")

    @child.tool
    def whoami(ctx: Context) -> str:
        return f"{ctx.state['user']} {ctx.request_id}"

    class SetUser(Middleware):
        async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            call.ctx.state["user"] = "ada"
            return await call_next(call)

    top = Server("top", middleware=[SetUser()])
    top.mount(child, prefix="c")
    async with connect(top, mode=mode) as client:
        result = await client.call_tool("c_whoami", {})
    assert result.content[0].text.startswith("ada ")


async def test_parent_middleware_wraps_child_middleware() -> None:
    log: list[str] = []
    child = billing()
    child.add_middleware(RecordingMiddleware("child", log))
    gateway = Server("gateway", middleware=[RecordingMiddleware("parent", log)])
    gateway.mount(child, prefix="billing")
    await gateway.call_tool("billing_get", {"invoice": 1})
    assert log == ["enter parent", "enter child", "exit child", "exit parent"]


async def test_parent_middleware_selector_matches_prefixed_names() -> None:
    scoped = RecordingMiddleware("scoped", tools="billing_*")
    gateway = Server("gateway", middleware=[scoped])
    gateway.add_tool(lambda: "x", name="local")
    gateway.mount(billing(), prefix="billing")
    await gateway.call_tool("local", {})
    await gateway.call_tool("billing_get", {"invoice": 1})
    assert [call.tool.name for call in scoped.calls] == ["billing_get"]


@dataclass(frozen=True)
class Describe:
    text: str

    def apply(self, tool: Tool) -> Tool:
        return tool.derive(self, description=self.text)


def test_parent_transforms_apply_to_mounted_tools_by_glob() -> None:
    gateway = Server("gateway")
    gateway.add_tool(lambda: "x", name="local")
    gateway.mount(billing(), prefix="billing")
    gateway.add_transform(Describe("from billing"), tools="billing_*")
    described = {tool.name: tool.description for tool in gateway.catalog.tools}
    assert described["billing_get"] == "from billing"
    assert described["local"] != "from billing"


def test_disabling_a_mounted_tool_in_the_parent_hides_it() -> None:
    gateway = Server("gateway")
    gateway.mount(billing(), prefix="billing")
    gateway.disable("billing_get")
    assert gateway.catalog.tools == ()


class Crash(Exception):
    pass


def crashing_child(*, mask: bool, tool_policy: ErrorPolicy | None = None) -> Server:
    child = Server("child", mask_error_details=mask)

    async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        raise Crash("secret detail")

    child.add_tool(Tool(name="boom", input_schema={"type": "object"}, run=run, error_policy=tool_policy))
    return child


@pytest.mark.parametrize(("parent_mask", "child_mask", "leaks"), [(True, False, False), (False, True, True)])
async def test_the_parents_error_masking_applies_to_mounted_tools(
    parent_mask: bool, child_mask: bool, leaks: bool
) -> None:
    gateway = Server("gateway", mask_error_details=parent_mask)
    gateway.mount(crashing_child(mask=child_mask), prefix="c")
    result = await gateway.call_tool("c_boom", {})
    assert result.is_error
    assert ("secret detail" in result.text) is leaks


async def test_a_tools_own_masking_policy_wins_over_the_parents() -> None:
    gateway = Server("gateway", mask_error_details=True)
    gateway.mount(crashing_child(mask=True, tool_policy=ErrorPolicy(mask=False)), prefix="c")
    result = await gateway.call_tool("c_boom", {})
    assert result.text == "Crash: secret detail"


def test_the_module_examples_run() -> None:
    import doctest

    import toolweave.server.mount as module

    assert doctest.testmod(module).failed == 0
