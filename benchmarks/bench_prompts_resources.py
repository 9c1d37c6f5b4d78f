"""Prompts and resources: in-process render/read, side by side with the floor and FastMCP 4.1.2.

The floor is a direct call of the same function. Templates: a catalog of 200 templates where
the URI read matches the last one (the worst case of the ordered match), and a static resource
among 200 (one dict lookup).
"""

from __future__ import annotations

import logging
from typing import Any

from benchmarks.timing import Row, interleaved
from toolweave import Server

TEMPLATES = 200


async def greet(name: str) -> str:
    return f"Say hello to {name}."


async def motd() -> str:
    return "hello"


async def item(id: str) -> str:
    return id


def toolweave_server() -> Server:
    server = Server("bench")
    server.add_prompt(greet)
    server.add_resource(motd, "resource://motd")
    for i in range(TEMPLATES):
        server.add_resource(item, f"kind{i}://items/{{id}}", name=f"item{i}")
        server.add_resource(motd, f"static{i}://x", name=f"static{i}")
    return server


def fastmcp_server() -> Any:
    from fastmcp import FastMCP

    server = FastMCP("bench")
    server.prompt(greet)
    server.resource("resource://motd")(motd)
    for i in range(TEMPLATES):
        server.resource(f"kind{i}://items/{{id}}", name=f"item{i}")(item)
        server.resource(f"static{i}://x", name=f"static{i}")(motd)
    return server


async def collect(quick: bool) -> list[Row]:
    logging.getLogger("fastmcp").setLevel(logging.CRITICAL)
    number = 200 if quick else 3000
    ours, theirs = toolweave_server(), fastmcp_server()
    last = f"kind{TEMPLATES - 1}://items/42"
    group = "prompts and resources, in-process (µs/op)"

    async def direct() -> Any:
        return await greet("Ada")

    static = f"toolweave read_resource (static, {2 * TEMPLATES + 1} resources)"
    template = f"toolweave read_resource (template, last of {TEMPLATES})"
    paths = {
        "floor: direct call of the prompt function": direct,
        "toolweave get_prompt": lambda: ours.get_prompt("greet", {"name": "Ada"}),
        "fastmcp 4.1.2 render_prompt": lambda: theirs.render_prompt("greet", {"name": "Ada"}),
        static: lambda: ours.read_resource("resource://motd"),
        "fastmcp 4.1.2 read_resource (static)": lambda: theirs.read_resource("resource://motd"),
        template: lambda: ours.read_resource(last),
        f"fastmcp 4.1.2 read_resource (template, last of {TEMPLATES})": lambda: theirs.read_resource(last),
    }
    slow = max(number // 20, 20)
    timed = await interleaved(
        paths,
        rounds=5 if quick else 11,
        number=number,
        numbers={name: slow for name in paths if name.startswith("fastmcp")},
    )
    baselines = {
        "toolweave get_prompt": "floor: direct call of the prompt function",
        "fastmcp 4.1.2 render_prompt": "toolweave get_prompt",
        "fastmcp 4.1.2 read_resource (static)": static,
        f"fastmcp 4.1.2 read_resource (template, last of {TEMPLATES})": template,
    }
    return [Row(group, name, value, baseline=baselines.get(name)) for name, value in timed.items()]
