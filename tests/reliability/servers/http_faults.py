"""HTTP upstreams that fail: every request answered 500 (or 401), or a tool far slower than the caller waits.

Usage: python http_faults.py (500 | 401 | slow) PORT
"""

from __future__ import annotations

import sys

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from toolweave import Server


async def broken(request: Request) -> PlainTextResponse:
    return PlainTextResponse("internal failure at /srv/app.py", status_code=500)


async def refusing(request: Request) -> PlainTextResponse:
    return PlainTextResponse("who are you?", status_code=401)


slow = Server("slow")


@slow.tool
async def crawl(seconds: float) -> str:
    """Take `seconds`."""
    await anyio.sleep(seconds)
    return "done"


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    if kind in ("500", "401"):
        answer = broken if kind == "500" else refusing
        app = Starlette(routes=[Route("/mcp", answer, methods=["GET", "POST", "DELETE"])])
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    else:
        slow.run("http", port=port)
