"""The per-call cost of an OpenAPI tool against a direct `httpx` request to the same API.

The API (`benchmarks/openapi_app.py`) runs under uvicorn in a subprocess on 127.0.0.1, so the
client side is measured alone. Interleaved in the same rounds: a pooled `httpx2.AsyncClient`
GET plus `response.json()` (the floor), the toolweave OpenAPI tool called in-process (validation,
request building, response → result, output check), and FastMCP 4.1.2's `from_openapi` tool
called in-process (`FastMCP.call_tool`). Target: toolweave within 1.2x of the direct request.
A second group runs both paths over `httpx2.MockTransport`, so the client-side cost shows alone.

Run: `python -m benchmarks.bench_openapi [--quick]`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2

from benchmarks.openapi_app import SPEC
from benchmarks.timing import Row, median_us
from toolweave import RemoteServer

GROUP = "openapi call"
NO_NETWORK = "openapi call, no network"
ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def api_process() -> Iterator[str]:
    """The benchmark API under uvicorn in a subprocess; its base URL."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "uvicorn", "benchmarks.openapi_app:app", "--port", str(port)]
    process = subprocess.Popen([*command, "--log-level", "warning"], cwd=ROOT)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                httpx2.get(f"http://127.0.0.1:{port}/items/1", timeout=1)
                break
            except httpx2.HTTPError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _batch(call: Callable[[], Awaitable[Any]], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        await call()
    return (time.perf_counter() - start) / calls * 1e6


async def _no_network(quick: bool) -> list[Row]:
    """The same two paths over `httpx2.MockTransport`: the client-side cost alone, with no socket."""
    body = b'{"id":7,"name":"item 7","price":9.5}'

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    number = 500 if quick else 5000
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer), base_url="http://api") as client:
        api = RemoteServer.openapi(SPEC, base_url="http://api", client=client)

        async def direct() -> Any:
            return (await client.get("/items/7", params={"currency": "EUR"})).json()

        async def toolweave() -> Any:
            return await api.call_tool("get_item", {"item_id": 7, "currency": "EUR"})

        direct_us = await median_us(direct, number=number)
        toolweave_us = await median_us(toolweave, number=number)
    label = "httpx2 GET + json over MockTransport"
    return [
        Row(NO_NETWORK, label, direct_us),
        Row(NO_NETWORK, "toolweave OpenAPI tool over MockTransport", toolweave_us, label, note="client side only"),
    ]


async def collect(quick: bool) -> list[Row]:
    return await _over_loopback(quick) + await _no_network(quick)


async def _over_loopback(quick: bool) -> list[Row]:
    calls, rounds = (100, 3) if quick else (500, 9)
    with api_process() as url:
        api = RemoteServer.openapi(SPEC, base_url=url)
        async with httpx2.AsyncClient(base_url=url) as direct_client, api:
            paths: dict[str, Callable[[], Awaitable[Any]]] = {}

            async def direct() -> Any:
                response = await direct_client.get("/items/7", params={"currency": "EUR"})
                return response.json()

            async def toolweave() -> Any:
                return await api.call_tool("get_item", {"item_id": 7, "currency": "EUR"})

            paths["direct"] = direct
            paths["toolweave"] = toolweave
            fastmcp_client = httpx2.AsyncClient(base_url=url)
            try:
                from fastmcp import FastMCP

                fast = FastMCP.from_openapi(SPEC, client=fastmcp_client)

                async def fastmcp() -> Any:
                    return await fast.call_tool("get_item", {"item_id": 7, "currency": "EUR"})

                paths["fastmcp"] = fastmcp
            except ImportError:  # the bench extra is not installed
                pass
            for call in paths.values():
                for _ in range(20):
                    await call()
            samples: dict[str, list[float]] = {name: [] for name in paths}
            for _ in range(rounds):
                for name, call in paths.items():
                    samples[name].append(await _batch(call, calls))
            await fastmcp_client.aclose()
    timings = {name: statistics.median(values) for name, values in samples.items()}
    direct_label = "httpx2 GET + json (direct)"
    rows = [
        Row(GROUP, direct_label, timings["direct"]),
        Row(GROUP, "toolweave OpenAPI tool (in-process)", timings["toolweave"], direct_label, "within 1.2x"),
    ]
    if "fastmcp" in timings:
        rows.append(Row(GROUP, "fastmcp from_openapi tool (in-process)", timings["fastmcp"], direct_label))
    return rows


if __name__ == "__main__":
    for row in anyio.run(collect, "--quick" in sys.argv):
        print(f"{row.name:45} {row.median_us:10.1f} us  {row.target}")
