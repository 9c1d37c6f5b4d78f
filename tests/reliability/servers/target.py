"""The server the reliability tests serve: fast, failing, slow and counting tools.

Usage: python target.py [stdio | http PORT | config]
"""

from __future__ import annotations

import os
import sys

import anyio

from toolweave import Server, ToolError

server = Server("target")


@server.tool
def echo(text: str) -> str:
    """Echo text back."""
    return text


@server.tool
def fail(message: str = "refused") -> str:
    """Fail with a message meant for the client."""
    raise ToolError(message)


@server.tool
async def sleep(seconds: float) -> str:
    """Sleep, then say so."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.tool
def pid() -> int:
    """This process's id."""
    return os.getpid()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("http", port=int(sys.argv[2]))
    else:
        server.run()
