"""Tool search over a large catalog: building the index, one query, and `tools/list` behind it.

10,000 generated tools (400 kinds of record x 25 actions, each with its own description and
argument). Measured: compiling the catalog with `SearchTools` (the index is built then, once),
one BM25 query through the `search_tools` tool (validation and result included) and through the
index alone, one regex query, and listing the fronted catalog at 100 and at 10,000 tools.
Targets: a BM25 query under 2 ms; listing independent of the catalog size.

Run: `python -m benchmarks.bench_search [--quick]`.
"""

from __future__ import annotations

import itertools
import sys
import time
from typing import Any

import anyio

from benchmarks.timing import Row, median_us
from toolweave import Server, Tool, ToolResult
from toolweave.core.content import TextContent
from toolweave.transforms import SearchTools
from toolweave.transforms.bm25 import BM25Index, document

GROUP = "tool search"


def _words(text: str) -> list[str]:
    return text.split()


ACTIONS = _words("create get list update delete archive restore export import share comment tag search count approve \
reject assign schedule notify duplicate lock audit merge validate summarize")
NOUNS = _words("invoice customer order product shipment ticket employee meeting room branch build server bucket \
database backup domain email campaign lead contract")
QUALIFIERS = _words("draft shared regional legacy premium internal public monthly pending external archived priority \
trial partner annual daily global local team personal")
QUERIES = ["move an old premium invoice out of the active list", "clone a regional database backup",
           "how many pending support tickets", "send an alert about a partner shipment",
           "give a colleague access to a shared document"]  # fmt: skip


def catalog(size: int) -> Server:
    server = Server("big")

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult([TextContent("ok")])

    records = [f"{q}_{n}" for q, n in itertools.product(QUALIFIERS, NOUNS)]
    for record, action in itertools.islice(itertools.product(records, ACTIONS), size):
        words = record.replace("_", " ")
        server.add_tool(Tool(
            name=f"{action}_{record}",
            description=f"{action.capitalize()} a {words} record and report the outcome.",
            input_schema={"type": "object", "properties": {f"{record}_id": {"type": "string",
                          "description": f"The id of the {words}."}}, "required": [f"{record}_id"]},
            run=run,
        ))  # fmt: skip
    return server


async def collect(quick: bool) -> list[Row]:
    number = 200 if quick else 2000
    large, small = catalog(10_000), catalog(100)
    start = time.perf_counter()
    large.add_transform(SearchTools())
    large.catalog  # noqa: B018 - compile (and index) now
    compile_ms = (time.perf_counter() - start) * 1e3
    small.add_transform(SearchTools())
    regex = catalog(10_000)
    regex.add_transform(SearchTools(strategy="regex"))
    regex.catalog  # noqa: B018
    index = BM25Index([document(tool) for tool in catalog(10_000).catalog.tools])
    queries = itertools.cycle(QUERIES)

    async def through_tool() -> Any:
        return await large.call_tool("search_tools", {"query": next(queries)})

    async def index_only() -> Any:
        return index.search(next(queries), 5)

    async def by_regex() -> Any:
        return await regex.call_tool("search_tools", {"query": "archive_premium"})

    async def list_small() -> Any:
        return await small.list_tools()

    async def list_large() -> Any:
        return await large.list_tools()

    tool_us = await median_us(through_tool, number=number)
    label = "BM25 query via search_tools (10,000 tools)"
    return [
        Row(GROUP, "compile + index 10,000 tools", compile_ms * 1e3, note=f"{compile_ms:.0f} ms"),
        Row(GROUP, label, tool_us, target="< 2 ms"),
        Row(GROUP, "BM25 index.search alone (10,000 tools)", await median_us(index_only, number=number)),
        Row(GROUP, "regex query via search_tools (10,000 tools)", await median_us(by_regex, number=number // 10)),
        Row(GROUP, "tools/list behind search (100 tools)", await median_us(list_small, number=number)),
        Row(GROUP, "tools/list behind search (10,000 tools)", await median_us(list_large, number=number),
            "tools/list behind search (100 tools)", "same as 100"),
    ]  # fmt: skip


if __name__ == "__main__":
    for row in anyio.run(collect, "--quick" in sys.argv):
        print(f"{row.name:48} {row.median_us:10.1f} us  {row.target} {row.note}")
