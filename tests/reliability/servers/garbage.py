"""A hand-written stdio MCP server that prints garbage on stdout between its answers.

Usage: python garbage.py
"""

from __future__ import annotations

import json
import sys

TOOL = {"name": "noisy", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
GARBAGE = [
    "not json at all",
    '{"jsonrpc": "2.0", "id": ',
    "[1, 2, 3]",
    '{"jsonrpc":"2.0","id":424242,"result":{}}',
    "\x00\x01",
]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def noise() -> None:
    for line in GARBAGE:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    """Answer requests on stdin, with garbage before each answer."""
    for raw in sys.stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        noise()
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "garbage", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": message["params"]["arguments"].get("text", "")}]}
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}})
            continue
        send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main()
