"""An upstream that speaks only the 2026-07-28 protocol: `initialize` is refused with -32022.

Usage: python modern_only.py [http PORT]
"""

from __future__ import annotations

import sys
from typing import Any

import mcp.types as mt
from mcp import MCPError

from toolweave import Server

server = Server("modern-only")


@server.tool
def echo(text: str) -> str:
    """Echo text back."""
    return text


@server.tool
def grow(name: str) -> str:
    """Add a tool named `name` (the list changes)."""
    server.add_tool(lambda: name, name=name)
    return f"added {name}"


@server.resource("resource://counter")
def counter() -> str:
    """How many times `bump` ran."""
    return str(len(bumps))


bumps: list[int] = []


@server.tool
def bump() -> int:
    """Count one more; listeners of resource://counter hear of it."""
    bumps.append(1)
    server.resource_updated("resource://counter")
    return len(bumps)


async def refuse_handshake(ctx: Any, call_next: Any) -> Any:
    if ctx.method == "initialize":
        data = {"supported": ["2026-07-28"], "requested": "2025-11-25"}
        raise MCPError(mt.UNSUPPORTED_PROTOCOL_VERSION, "this server speaks only 2026-07-28", data)
    return await call_next(ctx)


server.as_mcp().middleware.insert(0, refuse_handshake)

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("http", port=int(sys.argv[2]))
    else:
        server.run()
