"""Prompts and resources: in-process render/read, side by side with the floor and FastMCP 4.1.2.

The floor is a direct call of the same function. Templates: a catalog of 200 templates where
the URI read matches the last one (the worst case of the ordered match), and a static resource
among 200 (one dict lookup).
"""

from __future__ import annotations

import logging
from typing import Any

from benchmarks.timing import Row, median_us
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

    return [
        Row(group, "floor: direct call of the prompt function", await median_us(direct, number=number)),
        Row(
            group,
            "toolweave get_prompt",
            await median_us(lambda: ours.get_prompt("greet", {"name": "Ada"}), number=number),
            baseline="floor: direct call of the prompt function",
        ),
        Row(
            group,
            "fastmcp 4.1.2 render_prompt",
            await median_us(lambda: theirs.render_prompt("greet", {"name": "Ada"}), number=number),
            baseline="toolweave get_prompt",
        ),
        Row(
            group,
            f"toolweave read_resource (static, {2 * TEMPLATES + 1} resources)",
            await median_us(lambda: ours.read_resource("resource://motd"), number=number),
        ),
        Row(
            group,
            "fastmcp 4.1.2 read_resource (static)",
            await median_us(lambda: theirs.read_resource("resource://motd"), number=number),
            baseline=f"toolweave read_resource (static, {2 * TEMPLATES + 1} resources)",
        ),
        Row(
            group,
            f"toolweave read_resource (template, last of {TEMPLATES})",
            await median_us(lambda: ours.read_resource(last), number=number),
        ),
        Row(
            group,
            f"fastmcp 4.1.2 read_resource (template, last of {TEMPLATES})",
            await median_us(lambda: theirs.read_resource(last), number=number),
            baseline=f"toolweave read_resource (template, last of {TEMPLATES})",
        ),
    ]
