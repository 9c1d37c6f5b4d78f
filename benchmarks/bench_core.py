"""Foundation benchmarks: in-process calls, in-memory and stdio round trips, large catalogs.

Side by side in one run: the floor (a direct call, and the same call validated by a prebuilt
pydantic validator), toolweave, the bare SDK low-level server, and FastMCP 4.1.2.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from benchmarks.servers.adder import add, fastmcp_server, lowlevel_server, toolweave_server
from benchmarks.timing import Row, median_us
from toolweave import Server
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

    rows = [
        Row(group, "floor: direct call", await median_us(direct, number=number)),
        Row(group, "floor: pydantic-validated call", await median_us(validated, number=number)),
        Row(
            group,
            "toolweave call_tool (async tool)",
            await median_us(lambda: server.call_tool("add", ARGS), number=number),
            baseline="floor: pydantic-validated call",
            target="+10 µs over the validated floor",
        ),
        Row(
            group,
            "toolweave call_tool (sync tool, inline)",
            await median_us(lambda: server.call_tool("add_inline", ARGS), number=number),
            baseline="floor: pydantic-validated call",
        ),
        Row(
            group,
            "toolweave call_tool (sync tool, worker thread)",
            await median_us(lambda: server.call_tool("add_sync", ARGS), number=number // 5),
            baseline="floor: pydantic-validated call",
            note="includes the thread hop",
        ),
        Row(
            group,
            "fastmcp 4.1.2 call_tool (async tool)",
            await median_us(lambda: fast.call_tool("add", ARGS), number=number // 5),
            baseline="toolweave call_tool (async tool)",
        ),
    ]
    return rows


async def _in_memory(quick: bool) -> list[Row]:
    from mcp import Client

    group = "in-memory round trip via mcp.Client (µs/call)"
    number = 100 if quick else 1000
    rows = []
    for label, target in (
        ("bare SDK low-level server", lowlevel_server()),
        ("toolweave", toolweave_server().as_mcp()),
        ("fastmcp 4.1.2", fastmcp_server()._mcp_server),
    ):
        async with Client(target) as client:
            median = await median_us(lambda c=client: c.call_tool("add", ARGS), number=number, warmup=50)
        rows.append(
            Row(
                group,
                label,
                median,
                baseline=None if label.startswith("bare") else "bare SDK low-level server",
                target="≤1.15×" if label == "toolweave" else "",
            )
        )
    return rows


async def _stdio(quick: bool) -> list[Row]:
    from mcp import Client, StdioServerParameters

    from tests.conftest import subprocess_env

    group = "stdio round trip via mcp.Client (µs/call)"
    number = 50 if quick else 400
    rows = []
    for kind in ("lowlevel", "toolweave", "fastmcp"):
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "benchmarks.servers.adder", kind], env=subprocess_env()
        )
        async with Client(params) as client:
            median = await median_us(lambda c=client: c.call_tool("add", ARGS), repeat=5, number=number, warmup=20)
        label = {"lowlevel": "bare SDK low-level server", "toolweave": "toolweave", "fastmcp": "fastmcp 4.1.2"}[kind]
        rows.append(
            Row(
                group,
                label,
                median,
                baseline=None if kind == "lowlevel" else "bare SDK low-level server",
                target="≤1.15×" if kind == "toolweave" else "",
            )
        )
    return rows


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
    await adapter._list_tools(None, None)  # type: ignore[arg-type]  # build the wire cache once
    list_us = await median_us(server.list_tools, number=50, warmup=5)
    wire_us = await median_us(lambda: adapter._list_tools(None, None), number=50, warmup=5)  # type: ignore[arg-type]
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
