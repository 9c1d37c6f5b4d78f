"""Mount and remote-mount overhead, side by side with FastMCP 4.1.2.

Groups:
- `mounts in-process`: one plain tool called in-process unmounted, through 1 and 3 mount levels
  (and 3 levels whose servers each add one pass-through middleware); FastMCP `mount(namespace=)`
  at the same depths. Target: each toolweave level adds under 2 us.
- `stdio remote`: calls to a bare-SDK stdio server directly with the `mcp` client (one
  `ClientSession`), through a toolweave `RemoteServer` mount, and through FastMCP `create_proxy`.
  Target: the toolweave mount within 1.3x of the direct client.

Run: `python -m benchmarks.bench_mounts [--quick]`.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from benchmarks.timing import Row, interleaved
from toolweave import Server
from toolweave.middleware.base import CallNext, Middleware, ToolCall
from toolweave.server.remote import RemoteServer

UPSTREAM = str(Path(__file__).with_name("echo_upstream.py"))
IN_PROCESS = "mounts in-process"
REMOTE = "stdio remote"


class PassThrough(Middleware):
    async def on_call_tool(self, call: ToolCall, call_next: CallNext) -> Any:
        return await call_next(call)


def toolweave_chain(depth: int, *, middleware: bool = False) -> tuple[Server, str]:
    top = deepest = Server("top")
    name = "echo"
    for level in range(depth):
        child = Server(f"l{level}", middleware=[PassThrough()] if middleware else ())
        deepest.mount(child, prefix=f"l{level}")
        deepest = child

    async def echo(text: str) -> str:
        return text

    deepest.add_tool(echo)
    if depth:
        name = "_".join(f"l{level}" for level in range(depth)) + "_echo"
    return top, name


def fastmcp_chain(depth: int) -> tuple[Any, str]:
    from fastmcp import FastMCP

    top = deepest = FastMCP("top")
    for level in range(depth):
        child = FastMCP(f"l{level}")
        deepest.mount(child, namespace=f"l{level}")
        deepest = child

    @deepest.tool
    async def echo(text: str) -> str:
        return text

    name = "_".join(f"l{level}" for level in range(depth)) + "_echo" if depth else "echo"
    return top, name


async def _in_process(quick: bool) -> list[Row]:
    number, rounds = (500, 3) if quick else (3000, 11)
    args = {"text": "hi"}
    paths: dict[str, Callable[[], Awaitable[object]]] = {}
    for label, depth, middleware in (
        ("toolweave unmounted", 0, False),
        ("toolweave depth 1", 1, False),
        ("toolweave depth 3", 3, False),
        ("toolweave depth 3, 1 middleware per level", 3, True),
    ):
        server, name = toolweave_chain(depth, middleware=middleware)
        paths[label] = lambda s=server, n=name: s.call_tool(n, args)
    fastmcp_labels = {
        0: "fastmcp unmounted",
        1: "fastmcp depth 1 (mount namespace=)",
        3: "fastmcp depth 3 (mount namespace=)",
    }
    for depth, label in fastmcp_labels.items():
        fm, name = fastmcp_chain(depth)
        paths[label] = lambda s=fm, n=name: s.call_tool(n, args)
    slow = max(number // 20, 50)
    timings = await interleaved(
        paths, rounds=rounds, number=number, numbers=dict.fromkeys(fastmcp_labels.values(), slow), warmup=20
    )
    base = "toolweave unmounted"
    return [
        Row(IN_PROCESS, label, us, None if label == base else base, "< 2 us per level")
        for label, us in timings.items()
        if label.startswith("toolweave")
    ] + [
        Row(IN_PROCESS, label, timings[label], None if depth == 0 else "fastmcp unmounted")
        for depth, label in fastmcp_labels.items()
    ]


async def _remote(quick: bool) -> list[Row]:
    from fastmcp.client.transports import StdioTransport
    from fastmcp.server import create_proxy
    from mcp import ClientSession, StdioServerParameters, stdio_client

    calls, rounds = (50, 3) if quick else (200, 7)
    env = dict(os.environ)
    params = StdioServerParameters(command=sys.executable, args=[UPSTREAM], env=env)
    gateway = Server("gateway")
    gateway.mount(RemoteServer.stdio(sys.executable, [UPSTREAM], env=env), prefix="up")
    transport = StdioTransport(command=sys.executable, args=[UPSTREAM], env=env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proxy = create_proxy(transport, name="proxy")
    args = {"text": "hi"}
    try:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session, gateway:
            await session.initialize()
            await session.list_tools()
            timings = await interleaved(
                {
                    "direct": lambda: session.call_tool("echo", args),
                    "mounted": lambda: gateway.call_tool("up_echo", args),
                    "proxy": lambda: proxy.call_tool("echo", args),
                },
                number=calls,
                rounds=rounds,
                warmup=20,
            )
    finally:
        await transport.close()
    direct = "mcp ClientSession direct"
    return [
        Row(REMOTE, direct, timings["direct"]),
        Row(REMOTE, "toolweave RemoteServer mount", timings["mounted"], direct, "within 1.3x"),
        Row(REMOTE, "fastmcp create_proxy", timings["proxy"], direct),
    ]


async def collect(quick: bool) -> list[Row]:
    """Rows for the mount benchmarks (see the module docstring)."""
    return await _in_process(quick) + await _remote(quick)


def _print(rows: list[Row]) -> None:
    by_name = {(row.group, row.name): row for row in rows}
    for row in rows:
        ratio = ""
        if row.baseline:
            base = by_name[(row.group, row.baseline)]
            ratio = f"{row.median_us / base.median_us:6.2f}x  (+{row.median_us - base.median_us:.2f} us)"
        print(f"{row.group:18} {row.name:45} {row.median_us:10.2f} us  {ratio:24} {row.target}")


if __name__ == "__main__":
    _print(anyio.run(collect, "--quick" in sys.argv))
