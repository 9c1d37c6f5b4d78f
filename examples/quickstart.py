"""A server built from a few plain functions, served over MCP.

    python examples/quickstart.py              # stdio: for an MCP client to spawn
    python examples/quickstart.py --http 8000  # streamable HTTP at http://127.0.0.1:8000/mcp
    python examples/quickstart.py --list       # print what a client will see, then exit

Whatever the mode, a summary goes to stderr: the tools a client will see and how to connect.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Annotated, Literal

import anyio
from pydantic import BaseModel, Field

from toolweave import Context, Server, ToolError

server = Server("quickstart", instructions="Small utilities: temperatures, text statistics and dice.")


class TextStats(BaseModel):
    words: int
    characters: int
    lines: int


@server.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
def convert_temperature(value: float, unit: Literal["C", "F"] = "C") -> float:
    """Convert a temperature between Celsius and Fahrenheit.

    Args:
        value: the temperature to convert
        unit: the unit `value` is in; the result is in the other one
    """
    return round(value * 9 / 5 + 32, 2) if unit == "C" else round((value - 32) * 5 / 9, 2)


@server.tool(annotations={"readOnlyHint": True})
def text_stats(text: Annotated[str, Field(description="the text to measure", max_length=100_000)]) -> TextStats:
    """Count the words, characters and lines of a text."""
    return TextStats(words=len(text.split()), characters=len(text), lines=text.count("\n") + 1)


@server.tool
async def roll_dice(ctx: Context, sides: Annotated[int, Field(ge=2, le=100)] = 6, count: int = 1) -> list[int]:
    """Roll dice, reporting progress for each one.

    Args:
        sides: faces on each die
        count: how many dice to roll (at most 20)
    """
    if count > 20:
        raise ToolError("at most 20 dice at once")
    rolls = []
    for index in range(count):
        rolls.append(random.randint(1, sides))
        await ctx.report_progress(index + 1, count)
    return rolls


def summary(http_port: int | None) -> str:
    """What a client will see, and how to connect."""
    lines = [f"toolweave server {server.name!r} with {len(server.catalog.tools)} tools:"]
    for tool in server.catalog.tools:
        args = ", ".join(tool.input_schema.get("properties", {}))
        lines.append(f"  {tool.name}({args}) - {(tool.description or '').splitlines()[0]}")
    if http_port is None:
        script = str(Path(__file__).resolve())
        snippet = {"mcpServers": {"quickstart": {"command": sys.executable, "args": [script]}}}
        lines.append("Connect a client over stdio with this config:")
    else:
        snippet = {"mcpServers": {"quickstart": {"url": f"http://127.0.0.1:{http_port}/mcp"}}}
        lines.append(f"Serving at http://127.0.0.1:{http_port}/mcp; client config:")
    lines.append(json.dumps(snippet, indent=2))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve over HTTP on 127.0.0.1:PORT")
    parser.add_argument("--list", action="store_true", help="print the tools and exit")
    options = parser.parse_args()
    print(summary(options.http), file=sys.stderr)
    if options.list:
        return
    if options.http is not None:
        anyio.run(lambda: server.run_async("http", host="127.0.0.1", port=options.http))
    else:
        server.run()


if __name__ == "__main__":
    main()
