"""Foundation benchmarks: in-process calls, in-memory and stdio round trips, large catalogs.

Side by side in one run: the floor (a direct call, and the same call validated by a prebuilt
pydantic validator), toolweave, the bare SDK low-level server, and FastMCP 4.1.2.
"""

from __future__ import annotations

import sys
import time
from contextlib import AsyncExitStack
from types import SimpleNamespace
from typing import Any

from benchmarks.servers.adder import add, fastmcp_server, lowlevel_server, toolweave_server
from benchmarks.timing import Row, interleaved, median_us
from toolweave import Server
from toolweave.middleware import Timeout
from toolweave.testing import fake_tool

ARGS = {"a": 1, "b": 2}


async def _in_process(quick: bool) -> list[Row]:
    from pydantic import create_model

    validate = create_model("add_arguments", a=(int, ...), b=(int, ...)).__pydantic_validator__.validate_python
    server = toolweave_server()

    def add_sync(a: int, b: int) -> int:
        return a + b

    server.add_tool(add_sync, name="add_sync")
    server.add_tool(add_sync, name="add_inline", run_in_thread=False)
    fast = fastmcp_server()
    number = 500 if quick else 5000
    group = "in-process call (µs/call)"

    async def direct() -> Any:
        return await add(**ARGS)

    async def validated() -> Any:
        return await add(**validate(ARGS).__dict__)

    timed = await interleaved(
        {
            "direct": direct,
            "validated": validated,
            "async": lambda: server.call_tool("add", ARGS),
            "inline": lambda: server.call_tool("add_inline", ARGS),
            "worker": lambda: server.call_tool("add_sync", ARGS),
            "fastmcp": lambda: fast.call_tool("add", ARGS),
        },
        rounds=5 if quick else 15,
        number=number,
        numbers={"worker": number // 5, "fastmcp": number // 20},
    )
    floor = "floor: pydantic-validated call"
    return [
        Row(group, "floor: direct call", timed["direct"]),
        Row(group, floor, timed["validated"]),
        Row(
            group,
            "toolweave call_tool (async tool)",
            timed["async"],
            baseline=floor,
            target="+3 µs over the validated floor",
        ),
        Row(group, "toolweave call_tool (sync tool, inline)", timed["inline"], baseline=floor),
        Row(
            group,
            "toolweave call_tool (sync tool, worker thread)",
            timed["worker"],
            baseline=floor,
            note="includes the thread hop",
        ),
        Row(
            group, "fastmcp 4.1.2 call_tool (async tool)", timed["fastmcp"], baseline="toolweave call_tool (async tool)"
        ),
    ]


async def _round_trips(group: str, clients: dict[str, Any], number: int, quick: bool, target: str) -> list[Row]:
    """One round trip of `add` through each connected client, interleaved in the same rounds."""
    timed = await interleaved(
        {label: (lambda c=client: c.call_tool("add", ARGS)) for label, client in clients.items()},
        rounds=5 if quick else 11,
        number=number,
        warmup=20,
    )
    base = "bare SDK low-level server"
    return [
        Row(
            group,
            label,
            value,
            baseline=None if label == base else base,
            target=target if label == "toolweave" else "",
        )
        for label, value in timed.items()
    ]


async def _in_memory(quick: bool) -> list[Row]:
    from mcp import Client

    number = 50 if quick else 300
    rows = []
    for mode, era in (("auto", "2026-07-28"), ("legacy", "2025 handshake")):
        group = f"in-memory round trip via mcp.Client, {era} (µs/call)"
        async with AsyncExitStack() as stack:
            clients = {
                label: await stack.enter_async_context(Client(target, mode=mode))
                for label, target in (
                    ("bare SDK low-level server", lowlevel_server()),
                    ("toolweave", toolweave_server().as_mcp()),
                    ("toolweave, Timeout(30) on the tool", toolweave_server(Timeout(30)).as_mcp()),
                    ("fastmcp 4.1.2", fastmcp_server()._mcp_server),
                )
            }
            rows += await _round_trips(group, clients, number, quick, "≤1.10×")
    return rows


async def _stdio(quick: bool) -> list[Row]:
    from mcp import Client, StdioServerParameters

    from tests.conftest import subprocess_env

    group = "stdio round trip via mcp.Client (µs/call)"
    labels = {"lowlevel": "bare SDK low-level server", "toolweave": "toolweave", "fastmcp": "fastmcp 4.1.2"}
    async with AsyncExitStack() as stack:
        clients = {}
        for kind, label in labels.items():
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "benchmarks.servers.adder", kind], env=subprocess_env()
            )
            clients[label] = await stack.enter_async_context(Client(params))
        return await _round_trips(group, clients, 30 if quick else 150, quick, "≤1.15×")


async def _large_catalog(quick: bool) -> list[Row]:
    from toolweave.mcp.adapter import adapter_for

    count = 10_000
    group = f"catalog of {count:,} tools"
    server = Server("big", page_size=None)
    started = time.perf_counter()
    for index in range(count):
        server.add_tool(fake_tool(f"tool_{index}", {"type": "object", "properties": {"x": {"type": "integer"}}}))
    register_ms = (time.perf_counter() - started) * 1e3
    started = time.perf_counter()
    functions = Server("functions")
    for index in range(count if not quick else 1000):
        functions.add_tool(add, name=f"add_{index}")
    function_ms = (time.perf_counter() - started) * 1e3 * (1 if not quick else 10)
    started = time.perf_counter()
    server.catalog  # noqa: B018 - compile
    compile_ms = (time.perf_counter() - started) * 1e3
    adapter = adapter_for(server)
    request = SimpleNamespace(request=None)  # an in-process request: no HTTP scope, no verified caller
    await adapter._list_tools(request, None)  # type: ignore[arg-type]  # build the wire cache once
    list_us = await median_us(server.list_tools, number=50, warmup=5)
    wire_us = await median_us(lambda: adapter._list_tools(request, None), number=50, warmup=5)  # type: ignore[arg-type]
    return [
        Row(group, "register 10,000 schema tools (total)", register_ms, unit="ms", target="< 1 s"),
        Row(group, "register 10,000 function tools (total)", function_ms, unit="ms", target="< 1 s"),
        Row(group, "compile the catalog (total)", compile_ms, unit="ms"),
        Row(group, "server.list_tools() once compiled", list_us, target="< 5 ms"),
        Row(group, "tools/list handler (wire objects, cached)", wire_us, target="< 5 ms"),
    ]


async def collect(quick: bool) -> list[Row]:
    """Every foundation figure."""
    return [
        *await _in_process(quick),
        *await _in_memory(quick),
        *await _stdio(quick),
        *await _large_catalog(quick),
    ]
