"""Transform benchmarks: a plain tool vs the same tool behind five stacked transforms.

The stack: a tool rename, two argument renames, one hidden argument with a default, one injected
value (a factory called per call), error masking and annotations. Called in-process through
`server.call_tool`, side by side with FastMCP 4.1.2 doing the same with `Tool.from_tool` and
`ArgTransform` (called through `FastMCP.call_tool`, its cheapest in-process entry point, both
with one `from_tool` layer and with the transforms stacked as separate layers).
"""

from __future__ import annotations

from typing import Any

from benchmarks.timing import Row, interleaved
from toolweave import Server, Tool
from toolweave.transforms import Annotate, Arg, InjectArgs, MaskErrors, Rename, TransformArgs

PLAIN_ARGS = {"q": "cats", "limit": 3, "api_key": "k"}
STACKED_ARGS = {"query": "cats", "max": 3}


async def search(q: str, limit: int, api_key: str, debug: bool = False) -> str:
    return q


def stacked_tool() -> Tool:
    return Tool.from_function(search).with_transforms(
        Rename("find_docs"),
        TransformArgs({"q": Arg(name="query")}),
        TransformArgs({"limit": Arg(name="max")}),
        TransformArgs({"debug": Arg(hide=True, default=True)}),
        InjectArgs(api_key=lambda: "server-key"),
        MaskErrors(),
        Annotate(read_only=True, idempotent=True),
    )


def toolweave_server() -> Server:
    server = Server("bench")
    server.add_tool(search)
    server.add_tool(stacked_tool())
    return server


def fastmcp_server() -> Any:
    from fastmcp import FastMCP
    from fastmcp.tools import Tool as FastTool
    from fastmcp.tools.tool_transform import ArgTransform
    from mcp.types import ToolAnnotations

    server = FastMCP("bench", mask_error_details=True)
    base = FastTool.from_function(search)
    server.add_tool(base)
    annotations = ToolAnnotations(readOnlyHint=True, idempotentHint=True)
    one_layer = FastTool.from_tool(
        base,
        name="find_docs",
        transform_args={
            "q": ArgTransform(name="query"),
            "limit": ArgTransform(name="max"),
            "debug": ArgTransform(hide=True, default=True),
            "api_key": ArgTransform(hide=True, default_factory=lambda: "server-key"),
        },
        annotations=annotations,
    )
    server.add_tool(one_layer)
    layered = FastTool.from_tool(base, name="find_docs_stacked")
    for transform_args in (
        {"q": ArgTransform(name="query")},
        {"limit": ArgTransform(name="max")},
        {"debug": ArgTransform(hide=True, default=True)},
        {"api_key": ArgTransform(hide=True, default_factory=lambda: "server-key")},
    ):
        layered = FastTool.from_tool(layered, transform_args=transform_args)
    server.add_tool(FastTool.from_tool(layered, annotations=annotations))
    return server


async def collect(quick: bool) -> list[Row]:
    """Plain vs stacked, toolweave vs FastMCP."""
    group = "five stacked transforms, in-process call_tool (µs/call)"
    number = 500 if quick else 5000
    server = toolweave_server()
    for name, args in (("search", PLAIN_ARGS), ("find_docs", STACKED_ARGS)):
        result = await server.call_tool(name, args)
        assert not result.is_error, result.text
    fast = fastmcp_server()
    slow = max(number // 50, 50)
    timed = await interleaved(
        {
            "plain": lambda: server.call_tool("search", PLAIN_ARGS),
            "stacked": lambda: server.call_tool("find_docs", STACKED_ARGS),
            "fast plain": lambda: fast.call_tool("search", PLAIN_ARGS),
            "fast one": lambda: fast.call_tool("find_docs", STACKED_ARGS),
            "fast stacked": lambda: fast.call_tool("find_docs_stacked", STACKED_ARGS),
        },
        rounds=5 if quick else 15,
        number=number // 5,
        numbers={"fast plain": slow, "fast one": slow, "fast stacked": slow},
    )
    plain, stacked = timed["plain"], timed["stacked"]
    fast_plain, fast_one, fast_stacked = timed["fast plain"], timed["fast one"], timed["fast stacked"]
    return [
        Row(group, "toolweave: plain tool", plain),
        Row(
            group,
            "toolweave: five stacked transforms",
            stacked,
            baseline="toolweave: plain tool",
            target="≤1.2×",
        ),
        Row(group, "fastmcp 4.1.2: plain tool", fast_plain, baseline="toolweave: plain tool"),
        Row(
            group,
            "fastmcp 4.1.2: one from_tool with the same changes",
            fast_one,
            baseline="toolweave: five stacked transforms",
            target="≥10× (ratio ≥ 10)",
        ),
        Row(
            group,
            "fastmcp 4.1.2: the changes as stacked from_tool layers",
            fast_stacked,
            baseline="toolweave: five stacked transforms",
            target="≥10× (ratio ≥ 10)",
        ),
    ]
