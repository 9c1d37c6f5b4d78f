"""Scale: registering 10,000 distinct function tools, listing them, and a stdio server holding them.

Side by side with FastMCP 4.1.2 (the scale targets of docs/architecture.md §9). The tools come from
`benchmarks.servers.many_tools`: every function has its own name, parameter names and types,
defaults, docstring and return type, so no signature cache can flatter a figure.

- registration: `Server.add_tool` for each function, in-process (a fresh process, so no cache
  is warm); the catalog compile and the first `tools/list` (wire objects) after it.
- cold start: spawn `python -m benchmarks.servers.many_tools <kind> N`, send `initialize` and
  `tools/list` over raw JSON-RPC on its stdin, and time until the answer is read, against the
  time of `python -c "import mcp"` (the floor any `mcp`-based server pays); toolweave's bytecode
  is written first, as an installed package has it, like the SDK's. toolweave sends
  1,000 tools a page by default: both the first page and the whole list (all pages) are timed,
  and a one-page server too. The server's RSS is read from `/proc/<pid>/status` afterwards.
- `tools/list` through the official `mcp.Client` on a warm stdio server (what a client waits).
- memory: in a fresh process, `tracemalloc` over registering, compiling and listing every tool;
  per tool, the bytes still allocated by lines of toolweave's own code (its state: tools, schemas,
  entries, wire forms), and by anything at all.

Each of toolweave's registration figures is the median of 3 fresh processes (1 in quick mode), each
cold start the median of 3; FastMCP's take a minute or more each and run once.

In quick mode the registration rows use 1,000 tools and scale the time by 10 (say so in the
note); the cold start uses 1,000 tools and FastMCP's 10,000-tool figures are skipped.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from benchmarks.servers.many_tools import module_dir
from benchmarks.timing import Row

FULL = 10_000
QUICK = 1_000
GROUP_REGISTER = "scale: registering distinct function tools (ms, total)"
GROUP_START = "scale: stdio server cold start until tools/list is answered"
GROUP_LIST = "scale: tools/list through mcp.Client on a warm stdio server (ms)"
GROUP_MEMORY = "scale: memory per tool (tracemalloc, KiB)"

_REGISTER_SCRIPT = """
import json, sys, time
from types import SimpleNamespace
import anyio
kind, count = sys.argv[1], int(sys.argv[2])
from benchmarks.servers import many_tools
fns = many_tools.functions(count)

async def toolweave():
    import toolweave
    from toolweave.mcp.adapter import adapter_for
    started, cpu = time.perf_counter(), time.process_time()
    server = many_tools.toolweave_server(fns, page_size=None)
    registered, cpu = time.perf_counter(), time.process_time() - cpu
    server.catalog
    compiled = time.perf_counter()
    handler = adapter_for(server)._list_tools
    request = SimpleNamespace(request=None)  # in-process: no HTTP scope, no verified caller
    await handler(request, None)
    listed = time.perf_counter()
    for _ in range(20):
        await handler(request, None)
    cached = (time.perf_counter() - listed) / 20
    return registered - started, compiled - registered, listed - compiled, cached, cpu

async def fastmcp():
    import fastmcp
    started, cpu = time.perf_counter(), time.process_time()
    server = many_tools.fastmcp_server(fns)
    registered, cpu = time.perf_counter(), time.process_time() - cpu
    await server.list_tools()
    return registered - started, 0.0, time.perf_counter() - registered, None, cpu

phases = anyio.run(toolweave if kind == "toolweave" else fastmcp)
print(json.dumps(dict(zip(["register", "compile", "first_list", "cached_list", "register_cpu"], phases))))
"""

_MEMORY_SCRIPT = """
import gc, json, os, sys, tracemalloc
from types import SimpleNamespace
import anyio
count = int(sys.argv[1])
from benchmarks.servers import many_tools
fns = many_tools.functions(count)
import toolweave
from toolweave.mcp.adapter import adapter_for
package = os.path.dirname(toolweave.__file__) + os.sep
if sys.argv[2] == "annotations-read":  # CPython builds a function's annotations dict on its first read
    for fn in fns:
        fn.__annotations__
tracemalloc.start()
server = many_tools.toolweave_server(fns, page_size=None)
server.catalog
anyio.run(adapter_for(server)._list_tools, SimpleNamespace(request=None), None)
gc.collect()
stats = tracemalloc.take_snapshot().statistics("filename")
total = sum(stat.size for stat in stats)
ours = sum(stat.size for stat in stats if stat.traceback[0].filename.startswith(package))
print(json.dumps({"ours": ours / count, "total": total / count}))
"""


def _env() -> dict[str, str]:
    from tests.conftest import subprocess_env

    return subprocess_env()


def _register(kind: str, count: int) -> dict[str, Any]:
    """Register `count` tools in a fresh process; the phases' times in seconds."""
    module_dir(count)  # generate and byte-compile the tools before timing anything
    out = subprocess.run(
        [sys.executable, "-c", _REGISTER_SCRIPT, kind, str(count)],
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _memory(count: int, annotations_read: bool = False) -> dict[str, float]:
    """Bytes per tool traced after registering, compiling and listing `count` tools in a fresh process
    (`annotations_read`: with every function's `__annotations__` dict built before tracing starts)."""
    module_dir(count)
    flag = "annotations-read" if annotations_read else "-"
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_SCRIPT, str(count), flag], env=_env(), capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def byte_compiled() -> None:
    """Write toolweave's and the benchmarks' bytecode, as installing a package does, so a server's
    start imports them from it like `import mcp` imports the SDK (with `PYTHONDONTWRITEBYTECODE`
    set and no `__pycache__`, every start would compile ~200 modules again: ~0.1 s)."""
    import compileall

    import toolweave

    for package in (Path(toolweave.__file__).parent, Path(__file__).parent):
        compileall.compile_dir(str(package), quiet=1)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (from /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> tuple[float, float]:
    """The process's current and peak resident set size (VmRSS, VmHWM) in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def _send(stdin: Any, message: dict[str, Any]) -> None:
    await stdin.send((json.dumps(message) + "\n").encode())


async def _answer(reader: BufferedByteReceiveStream, request_id: int) -> dict[str, Any]:
    while True:
        line = await reader.receive_until(b"\n", 256 * 1024 * 1024)
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message


async def cold_start(args: list[str]) -> dict[str, float]:
    """Spawn a stdio server; seconds until the first `tools/list` page and the whole list, and RSS."""
    started = time.perf_counter()
    async with await anyio.open_process([sys.executable, *args], env=_env(), stderr=subprocess.DEVNULL) as process:
        assert process.stdin is not None and process.stdout is not None
        reader = BufferedByteReceiveStream(process.stdout)
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
        await _send(process.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        await _answer(reader, 1)
        await _send(process.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        request_id, cursor, tools, first, cpu_first = 2, None, 0, 0.0, 0.0
        while True:
            params = {"cursor": cursor} if cursor else {}
            await _send(process.stdin, {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params})
            result = (await _answer(reader, request_id))["result"]
            if not first:
                first, cpu_first = time.perf_counter() - started, _cpu_seconds(process.pid)
            tools += len(result["tools"])
            cursor = result.get("nextCursor")
            request_id += 1
            if not cursor:
                break
        full = time.perf_counter() - started
        rss, peak = _rss_mib(process.pid)
        cpu = _cpu_seconds(process.pid)
        await process.stdin.aclose()
        with anyio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
    return {"first": first, "full": full, "rss": rss, "peak": peak, "cpu_first": cpu_first, "cpu": cpu, "tools": tools}


def _import_mcp_seconds(runs: int) -> tuple[float, float]:
    """Wall and CPU seconds of `python -c "import mcp"` (medians)."""
    walls, cpus = [], []
    for _ in range(runs):
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-c", "import mcp"], env=_env())
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        walls.append(time.perf_counter() - started)
        cpus.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


async def _median_start(args: list[str], runs: int) -> dict[str, float]:
    results = [await cold_start(args) for _ in range(runs)]
    return {key: statistics.median(result[key] for result in results) for key in results[0]}


def _ms_row(name: str, seconds: float, **options: Any) -> Row:
    return Row(GROUP_REGISTER, name, seconds * 1e3, unit="ms", **options)


def _median_register(kind: str, count: int, runs: int) -> dict[str, Any]:
    results = [_register(kind, count) for _ in range(runs)]
    return {
        key: None if results[0][key] is None else statistics.median(result[key] for result in results)
        for key in results[0]
    }


async def _registration(quick: bool) -> list[Row]:
    count = QUICK if quick else FULL
    note = f"{count:,} tools, × {FULL // count}" if quick else ""
    scale = FULL / count
    ours = _median_register("toolweave", count, 1 if quick else 3)
    rows = [
        _ms_row("toolweave: add_tool × 10,000", ours["register"] * scale, target="< 1 s", note=note),
        _ms_row("toolweave: add_tool × 10,000 (CPU)", ours["register_cpu"] * scale, target="< 1 s", note=note),
        _ms_row("toolweave: compile the catalog", ours["compile"] * scale, note=note),
        _ms_row("toolweave: first tools/list (wire objects)", ours["first_list"] * scale, note=note),
        _ms_row(
            "toolweave: tools/list from cache (handler)",
            ours["cached_list"],
            target="< 5 ms",
            note=f"{count:,} tools, not scaled" if quick else "",
        ),
    ]
    fast_count = 100 if quick else FULL
    theirs = _median_register("fastmcp", fast_count, 1)  # a minute or more each: one run
    fast_note = f"{fast_count:,} tools, × {FULL // fast_count}" if fast_count != FULL else ""
    rows += [
        _ms_row(
            "fastmcp 4.1.2: tool() × 10,000",
            theirs["register"] * FULL / fast_count,
            baseline="toolweave: add_tool × 10,000",
            note=fast_note,
        ),
        _ms_row(
            "fastmcp 4.1.2: tool() × 10,000 (CPU)",
            theirs["register_cpu"] * FULL / fast_count,
            baseline="toolweave: add_tool × 10,000 (CPU)",
            note=fast_note,
        ),
        _ms_row("fastmcp 4.1.2: first list_tools()", theirs["first_list"] * FULL / fast_count, note=fast_note),
    ]
    memory = _memory(count)
    rows += [
        Row(
            GROUP_MEMORY,
            "toolweave's own state per tool",
            memory["ours"] / 1024,
            unit="KiB",
            target="≤ 1.5 KiB",
            note=f"{count:,} tools registered, compiled, listed; allocated by toolweave's code",
        ),
        Row(GROUP_MEMORY, "everything traced per tool", memory["total"] / 1024, unit="KiB"),
        Row(
            GROUP_MEMORY,
            "toolweave's own state per tool, the functions' annotations built before",
            _memory(count, annotations_read=True)["ours"] / 1024,
            unit="KiB",
            note="the dict CPython builds from a function's annotations on their first read is the function's",
        ),
    ]
    return rows


async def _cold_starts(quick: bool) -> list[Row]:
    count = QUICK if quick else FULL
    runs = 1 if quick else 3
    module_dir(count)
    byte_compiled()
    floor_wall, floor_cpu = _import_mcp_seconds(runs)
    floor, floor_cpu_name = 'floor: python -c "import mcp"', 'floor: python -c "import mcp" (CPU)'
    note = f"{count:,} tools" if quick else ""
    server = ["-m", "benchmarks.servers.many_tools"]
    paged = await _median_start([*server, "toolweave", str(count)], runs)

    def ms(name: str, seconds: float, base: str = floor, **options: Any) -> Row:
        return Row(GROUP_START, name, seconds * 1e3, baseline=base, unit="ms", **options)

    def mib(name: str, value: float, **options: Any) -> Row:
        return Row(GROUP_START, name, value, unit="MiB", **options)

    rows = [
        Row(GROUP_START, floor, floor_wall * 1e3, unit="ms"),
        Row(GROUP_START, floor_cpu_name, floor_cpu * 1e3, unit="ms"),
        ms("toolweave: first page (1,000 tools)", paged["first"], target="≤ floor + 400 ms", note=note),
        ms("toolweave: every page", paged["full"], note=note),
        ms(
            "toolweave: CPU used by the first page",
            paged["cpu_first"],
            floor_cpu_name,
            target="≤ floor + 400 ms",
            note=note,
        ),
        ms("toolweave: CPU used by every page", paged["cpu"], floor_cpu_name, note=note),
        mib("toolweave: server RSS after listing", paged["rss"], target="< 80 MiB", note=note),
        mib("toolweave: server peak RSS", paged["peak"], note=note),
    ]
    if not quick:
        single = await _median_start([*server, "toolweave-one-page", str(count)], runs)
        theirs = await _median_start([*server, "fastmcp", str(count)], 1)
        rows += [
            ms("toolweave one page: tools/list answered", single["first"]),
            ms("toolweave one page: CPU used by then", single["cpu_first"], floor_cpu_name),
            mib("toolweave one page: server peak RSS", single["peak"]),
            ms("fastmcp 4.1.2: tools/list answered", theirs["first"]),
            ms("fastmcp 4.1.2: CPU used by then", theirs["cpu_first"], floor_cpu_name),
            mib("fastmcp 4.1.2: server RSS after listing", theirs["rss"]),
        ]
    return rows


async def _client_list(quick: bool) -> list[Row]:
    from mcp import Client, StdioServerParameters

    count = QUICK if quick else FULL
    rows = []
    for kind, label in (("toolweave", "toolweave, 1,000 a page"), ("toolweave-one-page", "toolweave, one page")):
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "benchmarks.servers.many_tools", kind, str(count)], env=_env()
        )
        async with Client(params) as client:
            samples = []
            for _ in range(2 if quick else 5):
                started = time.perf_counter()
                cursor, seen = None, 0
                while True:
                    result = await client.list_tools(cursor=cursor, cache_mode="bypass")
                    seen += len(result.tools)
                    cursor = result.next_cursor
                    if not cursor:
                        break
                samples.append(time.perf_counter() - started)
        rows.append(
            Row(
                GROUP_LIST,
                f"{label}: all {seen:,} tools",
                statistics.median(samples[1:] or samples) * 1e3,
                unit="ms",
                note=f"{count:,} tools" if quick else "",
            )
        )
    return rows


async def collect(quick: bool) -> list[Row]:
    """Every scale figure (quick: 1,000 tools, no FastMCP cold start, no client listing)."""
    rows = [*await _registration(quick), *await _cold_starts(quick)]
    if not quick:
        rows += await _client_list(quick)
    return rows
