"""An upstream built with the `mcp` SDK's own `MCPServer` (no toolweave): stdio, streamable HTTP or
the legacy HTTP+SSE transport.

Usage: python sdk_upstream.py [http PORT | sse PORT]

Tools: `getenv(name)` (its environment), `header(name)` (a header of the request, HTTP only),
`add(a, b)`, `pid()`.
"""

from __future__ import annotations

import os
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

server = MCPServer("sdk-upstream")


@server.tool()
def getenv(name: str) -> str:
    """The value of an environment variable of this process ('' when unset)."""
    return os.environ.get(name, "")


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of a header of the request that carried this call ('' when absent)."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    return headers.get(name, "") if headers is not None else ""


@server.tool()
def add(a: int, b: int) -> int:
    """a + b."""
    return a + b


@server.tool()
def pid() -> int:
    """This process's id."""
    return os.getpid()


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:2] == ["sse"]:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
