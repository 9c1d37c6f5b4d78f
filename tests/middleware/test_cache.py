"""`Cache`: hits for read-only idempotent tools, keyed by arguments and caller; errors never cached."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import anyio
import mcp.types as mt
import pytest

from toolweave import AuthInfo, Context, InputRequired, Server, Tool, ToolAnnotations, ToolError, elicit
from toolweave.middleware import Cache, Middleware, Timeout
from toolweave.testing import RecordingMiddleware, connect
from toolweave.transforms import InjectArgs, Source

SAFE = {"readOnlyHint": True, "idempotentHint": True}


def _server(cache: Cache, calls: list[dict[str, Any]]) -> Server:
    server = Server("cached", middleware=[cache])

    @server.tool(annotations=SAFE)
    def lookup(city: str, units: str = "metric") -> str:
        calls.append({"city": city, "units": units})
        if city == "nowhere":
            raise ToolError("unknown city")
        if city == "void":
            raise RuntimeError("backend down")
        return f"{city}: 21 degrees {units} (call {len(calls)})"

    @server.tool(annotations={"readOnlyHint": True})
    def now() -> int:
        calls.append({})
        return len(calls)

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_repeated_calls_are_served_from_the_cache(mode: str) -> None:
    calls: list[dict[str, Any]] = []
    cache = Cache(ttl=60)
    async with connect(_server(cache, calls), mode=mode) as client:
        first = await client.call_tool("lookup", {"city": "Oslo", "units": "metric"})
        second = await client.call_tool("lookup", {"units": "metric", "city": "Oslo"})
        third = await client.call_tool("lookup", {"city": "Oslo"})  # same validated arguments
        other = await client.call_tool("lookup", {"city": "Rome"})
    assert first.content[0].text == second.content[0].text == third.content[0].text
    assert "Rome" in other.content[0].text
    assert len(calls) == 2
    assert (cache.hits, cache.misses) == (2, 2)


@pytest.mark.parametrize("city", ["nowhere", "void"])
async def test_errors_are_never_cached(city: str) -> None:
    calls: list[dict[str, Any]] = []
    cache = Cache()
    server = _server(cache, calls)
    for _ in range(2):
        assert (await server.call_tool("lookup", {"city": city})).is_error
    assert len(calls) == 2 and len(cache) == 0


async def test_only_read_only_idempotent_tools_are_cached_by_default() -> None:
    calls: list[dict[str, Any]] = []
    server = _server(Cache(), calls)
    assert server.catalog.entries["now"].chain == ()
    assert [(await server.call_tool("now")).structured_content for _ in range(2)] == [
        {"result": 1},
        {"result": 2},
    ]
    relaxed = _server(Cache(only_safe=False), calls)
    assert len(relaxed.catalog.entries["now"].chain) == 1


async def test_callers_never_share_entries() -> None:
    calls: list[dict[str, Any]] = []
    server = _server(Cache(), calls)
    for subject in ("alice", "bob", "alice"):
        ctx = Context(server=server, auth=AuthInfo(subject=subject))
        await server.call_tool("lookup", {"city": "Oslo"}, ctx=ctx)
    assert len(calls) == 2


async def test_entries_expire_after_the_ttl() -> None:
    calls: list[dict[str, Any]] = []
    cache = Cache(ttl=0.001)
    server = _server(cache, calls)
    await server.call_tool("lookup", {"city": "Oslo"})
    await anyio.sleep(0.01)
    await server.call_tool("lookup", {"city": "Oslo"})
    assert len(calls) == 2 and cache.hits == 0


async def test_the_oldest_entries_are_dropped_beyond_max_entries() -> None:
    calls: list[dict[str, Any]] = []
    cache = Cache(max_entries=2)
    server = _server(cache, calls)
    for city in ("A", "B", "C", "A"):
        await server.call_tool("lookup", {"city": city})
    assert len(calls) == 4 and len(cache) == 2


SAFE = ToolAnnotations(read_only_hint=True, idempotent_hint=True)


async def test_a_tool_replaced_under_its_name_is_never_answered_from_the_old_ones_entries() -> None:
    server = Server("s", middleware=[Cache(ttl=60)])
    server.add_tool(lambda item: f"v1 price of {item}", name="price", annotations=SAFE)
    assert (await server.call_tool("price", {"item": "x"})).text == "v1 price of x"
    server.remove_tool("price")
    server.add_tool(lambda item: f"v2 price of {item}", name="price", annotations=SAFE)
    assert (await server.call_tool("price", {"item": "x"})).text == "v2 price of x"


async def test_one_cache_on_two_mounted_servers_keeps_their_same_named_tools_apart() -> None:
    cache = Cache(ttl=60)
    billing, pets = Server("billing", middleware=[cache]), Server("pets", middleware=[cache])
    billing.add_tool(lambda id: f"invoice {id}", name="get", annotations=SAFE)
    pets.add_tool(lambda id: f"pet {id}", name="get", annotations=SAFE)
    gateway = Server("gateway")
    gateway.mount(billing, prefix="billing")
    gateway.mount(pets, prefix="pets")
    answers = [(await gateway.call_tool(name, {"id": 1})).text for name in ("billing_get", "pets_get", "pets_get")]
    assert answers == ["invoice 1", "pet 1", "pet 1"] and cache.hits == 1


def test_annotations_object_also_qualifies() -> None:
    server = Server("ann", middleware=[Cache()])
    server.add_tool(lambda: 1, name="one", annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    assert len(server.catalog.entries["one"].chain) == 1


@dataclass(frozen=True)
class CountedTenant(Source):
    """The `x-tenant` header, counting how often it is read."""

    reads: list[str] = field(default_factory=list)
    varies: ClassVar[bool | None] = True

    @property
    def label(self) -> str:
        return "the counted tenant"

    def lookup(self, ctx: Context) -> Any:
        self.reads.append(ctx.headers["x-tenant"])
        return ctx.headers["x-tenant"]


def _tenant_server(source: Source, runs: list[str], middleware: Middleware | None = None) -> Server:
    server = Server("bank", middleware=[middleware or Cache(ttl=60)])

    def balance(account: str, tenant: str) -> str:
        runs.append(tenant)
        return f"balance of {tenant}/{account}"

    server.add_tool(Tool.from_function(balance, annotations=SAFE).with_transforms(InjectArgs(tenant=source)))
    return server


async def test_an_injected_request_value_is_read_once_per_call_and_keyed_as_the_tool_gets_it() -> None:
    source, runs = CountedTenant(), []
    server = _tenant_server(source, runs)
    texts = []
    for tenant in ["acme", "acme", "evil", "acme"]:
        ctx = Context(server=server, headers={"x-tenant": tenant})
        texts.append((await server.call_tool("balance", {"account": "main"}, ctx=ctx)).text)
    assert texts == ["balance of acme/main"] * 2 + ["balance of evil/main", "balance of acme/main"]
    assert runs == ["acme", "evil"]  # two entries, two hits
    assert source.reads == ["acme", "acme", "evil", "acme"]  # one read per call, by the cache, for both


async def test_a_custom_source_that_does_not_say_how_it_varies_is_never_cached() -> None:
    class Opaque(CountedTenant):
        varies: ClassVar[bool | None] = None

    runs: list[str] = []
    server = _tenant_server(Opaque(), runs)
    assert server.catalog.get("balance").chain == ()
    for _ in range(2):
        await server.call_tool("balance", {"account": "main"}, ctx=Context(server=server, headers={"x-tenant": "a"}))
    assert runs == ["a", "a"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_answered_question_is_not_cached_for_the_next_call(mode: str) -> None:
    server = Server("asking", middleware=[Cache(ttl=60)])
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

    @server.tool(annotations=SAFE)
    def greet(ctx: Context) -> str:
        """Ask for a name, then greet."""
        answer = ctx.input_responses.get("who")
        if answer is None:
            raise InputRequired({"who": elicit("Your name?", form)})
        return f"Hello, {answer['content']['name']}"

    names = iter(["Ada", "Grace"])

    async def on_elicit(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="accept", content={"name": next(names)})

    async with connect(server, mode=mode, elicitation_callback=on_elicit) as client:
        first = await client.call_tool("greet", {})
        second = await client.call_tool("greet", {})
    assert (first.content[0].text, second.content[0].text) == ("Hello, Ada", "Hello, Grace")


async def test_a_parent_cache_keys_on_what_a_mounted_tool_injects_and_reads_it_once() -> None:
    source, runs = CountedTenant(), []
    child = _tenant_server(source, runs, RecordingMiddleware())  # its chain hides the argument map
    parent = Server("gateway", middleware=[Cache(ttl=60)])
    parent.mount(child, prefix="bank")
    texts = []
    for tenant in ["acme", "evil", "acme"]:
        ctx = Context(server=parent, headers={"x-tenant": tenant})
        texts.append((await parent.call_tool("bank_balance", {"account": "main"}, ctx=ctx)).text)
    assert texts == ["balance of acme/main", "balance of evil/main", "balance of acme/main"]
    assert runs == ["acme", "evil"] and source.reads == ["acme", "evil", "acme"]


async def test_a_value_that_came_back_after_the_deadline_is_nobodys_answer() -> None:
    """The client was told the call timed out: its late value (a tool that ignored the
    cancellation, which may have cut its work short) was stored, and the next caller, or one
    already waiting for it, got it as the answer."""
    server, gate, runs = Server("cached", middleware=[Timeout(default=0.1), Cache(ttl=60)]), anyio.Event(), []

    @server.tool(annotations=SAFE)
    async def report() -> str:
        runs.append(len(runs) + 1)
        with anyio.CancelScope(shield=True):
            if len(runs) == 1:
                await gate.wait()
        return f"run {len(runs)}"

    texts: list[str] = []
    async with connect(server) as client:
        texts.append((await client.call_tool("report", {})).content[0].text)  # type: ignore[union-attr]  # abandoned
        async with anyio.create_task_group() as tasks:

            async def again() -> None:
                texts.append((await client.call_tool("report", {})).content[0].text)  # type: ignore[union-attr]

            tasks.start_soon(again)
            await anyio.sleep(0.02)
            gate.set()  # the first run comes back, late
    assert texts == ["Tool 'report' timed out after 0.1s", "run 2"]


async def test_a_value_from_a_tool_that_blocked_the_loop_past_its_deadline_is_not_cached() -> None:
    server, runs = Server("cached", middleware=[Timeout(default=0.05), Cache(ttl=60)]), []

    @server.tool(annotations=SAFE)
    async def report() -> str:
        runs.append(1)
        time.sleep(0.1)  # noqa: ASYNC251 - blocks the loop on purpose
        return "late"

    texts = [(await server.call_tool("report", {})).text for _ in range(2)]
    assert texts == ["Tool 'report' timed out after 0.05s"] * 2 and len(runs) == 2


async def test_callers_waiting_for_a_call_that_failed_twice_run_their_own_at_once() -> None:
    """Five concurrent misses of a tool that keeps failing: the callers waiting led one after
    another, so the last waited for four failures (0.3, 0.6, ... 1.5 s for a 0.3 s call); now
    one tries again and, when it fails too, the other three run together."""
    server, running, peak = Server("cached", middleware=[Cache(ttl=60)]), [0], [0]

    @server.tool(annotations=SAFE)
    async def lookup(city: str) -> str:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        try:
            await anyio.sleep(0.2)  # long enough for the other callers to join the first call
            raise RuntimeError("backend down")
        finally:
            running[0] -= 1

    errors: list[bool] = []
    async with connect(server) as client:

        async def call() -> None:
            errors.append((await client.call_tool("lookup", {"city": "Oslo"})).is_error)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                for _ in range(5):
                    tasks.start_soon(call)
    assert errors == [True] * 5 and peak[0] == 3
