"""An upstream serving RFC 6570 resource templates beyond `{name}`, built with the `mcp` SDK's own
`MCPServer` (the default) or with FastMCP (`fastmcp`); stdio.

Usage: python rfc6570_upstream.py [fastmcp]

Templates: `file:///{+path}` (reserved expansion: the path keeps its `/`) and
`search://items{?q,limit}` (optional query parameters). FastMCP writes a multi-segment path as
`{path*}`, so it serves `files://{path*}` instead of `file:///{+path}`. A read answers with the
values the upstream matched, as JSON. Completion (MCPServer only) answers
`<template>:<argument>=<value>`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

FASTMCP = "fastmcp" in sys.argv[1:]

if FASTMCP:
    from fastmcp import FastMCP

    server: Any = FastMCP("fastmcp-rfc6570")
else:
    from mcp.server import MCPServer

    server = MCPServer("sdk-rfc6570")


@server.resource("search://items{?q,limit}")
def search(q: str = "", limit: int = 10) -> str:
    """Items matching a query."""
    return json.dumps({"q": q, "limit": limit})


if FASTMCP:

    @server.resource("files://{path*}")
    def files(path: str) -> str:
        """A file, by a path of any depth (FastMCP's wildcard)."""
        return json.dumps({"path": path})

else:
    import mcp.types as types

    @server.resource("file:///{+path}")
    def file(path: str) -> str:
        """A file, by a path of any depth."""
        return json.dumps({"path": path})

    @server.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> types.Completion:
        name = ref.uri if isinstance(ref, types.ResourceTemplateReference) else ref.name
        return types.Completion(values=[f"{name}:{argument.name}={argument.value}"], total=1, has_more=False)


if __name__ == "__main__":
    server.run()
