"""An upstream whose tool returns every argument it received (the spoofing tests look for the canary).

Usage: python recorder.py
"""

from __future__ import annotations

import json

from toolweave import Server

server = Server("recorder")


@server.tool
def record(city: str, user_id: str = "nobody") -> str:
    """Return the arguments as JSON."""
    return json.dumps({"city": city, "user_id": user_id})


if __name__ == "__main__":
    server.run()
