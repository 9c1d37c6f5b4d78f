"""A server whose tools, prompt and resource raise `BaseException`s: none of them may end the server.

python tests/servers/fatal.py            # stdio
python tests/servers/fatal.py http PORT  # streamable HTTP on 127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import sys

import anyio

from toolweave import Server

server = Server("fatal")


@server.tool
def parse_flags(flags: str) -> str:
    """Parse command-line flags with argparse (exits on bad ones)."""
    parser = argparse.ArgumentParser(prog="flags", exit_on_error=True)
    parser.add_argument("--count", type=int)
    return str(parser.parse_args(flags.split()).count)


@server.tool
def exit_now() -> str:
    """Call sys.exit()."""
    sys.exit()


@server.tool
async def exit_async() -> str:
    """Raise SystemExit(3) on the event loop."""
    raise SystemExit(3)


@server.tool
async def interrupt() -> str:
    """Raise KeyboardInterrupt."""
    raise KeyboardInterrupt


@server.tool
async def group() -> str:
    """Raise a BaseExceptionGroup."""
    raise BaseExceptionGroup("several", [SystemExit(1), KeyboardInterrupt()])


@server.tool
async def cancel_itself() -> str:
    """Raise the cancellation exception with no cancellation in effect."""
    raise anyio.get_cancelled_exc_class()()


@server.tool
def close_generator() -> str:
    """Raise GeneratorExit in a worker thread (thrown into a coroutine, it would close its awaits)."""
    raise GeneratorExit


@server.tool
async def close_generator_async() -> str:
    """Raise GeneratorExit on the event loop."""
    raise GeneratorExit


@server.tool
def ping() -> str:
    """Answer pong."""
    return "pong"


@server.prompt
def exiting_prompt() -> str:
    """A prompt that exits."""
    raise SystemExit(4)


@server.resource("fatal://exit")
def exiting_resource() -> str:
    """A resource that exits."""
    raise SystemExit(5)


FATAL_TOOLS = [
    "parse_flags",
    "exit_now",
    "exit_async",
    "interrupt",
    "group",
    "cancel_itself",
    "close_generator",
    "close_generator_async",
]

if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
