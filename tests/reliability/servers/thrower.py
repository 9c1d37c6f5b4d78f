"""An upstream whose tool raises the exception kind it is asked for (masking on, the default).

Usage: python thrower.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.reliability.exceptions import KINDS
from toolweave import Server

server = Server("thrower")


@server.tool
def boom(kind: str) -> str:
    """Raise an exception of `kind`."""
    raise KINDS[kind]()


if __name__ == "__main__":
    server.run()
