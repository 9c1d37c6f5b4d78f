"""A toolweave server for black-box clients (MCP Inspector, fastmcp) to drive.

    python -m tests.interop.servers stdio           # stdio, for a client to spawn
    python -m tests.interop.servers http PORT       # http://127.0.0.1:PORT/mcp

Its page size is 2, so `tools/list` takes three pages: clients must follow the cursor.
"""

from __future__ import annotations

import sys
from typing import Annotated, Literal

from pydantic import Field

from toolweave import Context, InputRequired, Server, ToolError, elicit

PAGE_SIZE = 2
server = Server("interop", version="1.0.0", page_size=PAGE_SIZE)


@server.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first addend
        b: the second addend
    """
    return a + b


@server.tool(annotations={"readOnlyHint": True})
def greet(name: Annotated[str, Field(min_length=1)], style: Literal["plain", "loud"] = "plain") -> str:
    """Greet someone.

    Args:
        name: who to greet
        style: "loud" shouts the greeting
    """
    text = f"Hello, {name}!"
    return text.upper() if style == "loud" else text


@server.tool
async def count(ctx: Context, steps: Annotated[int, Field(ge=1, le=20)] = 3) -> str:
    """Count to `steps`, reporting progress at each step.

    Args:
        steps: how far to count
    """
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


@server.tool
def divide(a: float, b: float) -> float:
    """Divide `a` by `b`; dividing by zero is a tool error.

    Args:
        a: the dividend
        b: the divisor
    """
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


@server.tool(annotations={"readOnlyHint": True})
def whoami(ctx: Context) -> str:
    """Name the client that called."""
    return ctx.client.name if ctx.client else "unknown"


@server.tool
def introduce(ctx: Context) -> str:
    """Ask the user for their name (elicitation), then introduce them."""
    answer = ctx.input_responses.get("who")
    if answer is None:
        form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        raise InputRequired({"who": elicit("What is your name?", form)})
    if answer.get("action") != "accept":
        return "Nobody to introduce."
    return f"Please welcome {answer['content']['name']}!"


TOOL_NAMES = ["add", "greet", "count", "divide", "whoami", "introduce"]


def main(argv: list[str]) -> None:
    """Serve over `stdio` or `http PORT` (127.0.0.1)."""
    if len(argv) >= 2 and argv[1] == "http":
        server.run("http", host="127.0.0.1", port=int(argv[2]))
    elif argv[1:] in ([], ["stdio"]):
        server.run()
    else:
        sys.exit("usage: python -m tests.interop.servers stdio | http PORT")


if __name__ == "__main__":
    main(sys.argv)
