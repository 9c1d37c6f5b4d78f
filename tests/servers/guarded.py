"""A server whose `tools/list` middleware and completion function fail with text that must never
reach a client (a pydantic error quoting a client secret; `SystemExit`).

    python tests/servers/guarded.py            # stdio
    python tests/servers/guarded.py http PORT  # streamable HTTP on 127.0.0.1:PORT
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel

from toolweave import Context, Server, Tool
from toolweave.middleware import Middleware

SECRET = "client_secret=hunter2-hunter2"


class TokenRequest(BaseModel):
    expires_in: int


class BrokenListing(Middleware):
    async def on_list_tools(self, tools: list[Tool], ctx: Context) -> list[Tool]:
        TokenRequest.model_validate({"expires_in": f"https://idp.test/token?{SECRET}"})
        return tools


server = Server("guarded")
server.add_middleware(BrokenListing())


@server.prompt
def greet(name: str) -> str:
    """Greet."""
    return f"hi {name}"


@server.completion
def complete(request: Any) -> list[str]:
    raise SystemExit(SECRET)


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
