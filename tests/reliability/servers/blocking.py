"""A server whose sync tool blocks its worker thread, served with a one-second grace period.

Usage: python blocking.py            (Server.run over stdio)
"""

from __future__ import annotations

import time

from toolweave import Server

server = Server("blocking")


@server.tool
def block(seconds: float) -> str:
    """Block a worker thread (uninterruptible), then say so."""
    time.sleep(seconds)
    return f"blocked {seconds}"


if __name__ == "__main__":
    server.run("stdio", grace=1)
