"""A hand-written stdio upstream (JSON-RPC lines, no SDK) that answers what an SDK server never would.

Usage: python raw_upstream.py [bad-prompt | bad-tool | twice | silent | long-lines]

It serves two tools, `echo` (its arguments back as text) and `hologram` (a content block of a
type MCP does not have, holding `secret-hologram-data`), and:
- `bad-prompt`: advertises prompts and resources, lists `greet` beside a prompt whose argument has
  no name, and answers `resources/list` with a list that is not one;
- `bad-tool`: lists `sloppy` too, whose `inputSchema` is `{}` (no `"type": "object"`);
- `twice`: lists `echo` a second time, described as `the second`;
- `silent`: never answers `initialize`;
- `long-lines`: before it answers, writes 4 MiB to stderr without a newline, then `done`; and
  sends a log message of 1 MiB before each answer to `echo`.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
TOOLS = [{"name": "echo", "inputSchema": {"type": "object"}}, {"name": "hologram", "inputSchema": {"type": "object"}}]
EXTRA_TOOLS = {
    "bad-tool": [{"name": "sloppy", "inputSchema": {}}],
    "twice": [{**TOOLS[0], "description": "the second"}],
}
PROMPTS = [{"name": "greet"}, {"name": "broken", "arguments": [{"description": "an argument without a name"}]}]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(method: str, params: dict) -> dict | None:
    if method == "initialize":
        capabilities = {"tools": {}, **({"prompts": {}, "resources": {}} if MODE == "bad-prompt" else {})}
        info = {"name": "raw", "version": "0"}
        return {"protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": info}
    if method == "tools/list":
        return {"tools": [*TOOLS, *EXTRA_TOOLS.get(MODE, [])]}
    if method == "prompts/list":
        return {"prompts": PROMPTS}
    if method == "resources/list":
        return {"resources": "none"}
    if method == "tools/call" and params["name"] == "hologram":
        return {"content": [{"type": "hologram", "data": "secret-hologram-data"}]}
    if method == "tools/call":
        if MODE == "long-lines":
            log = {"level": "info", "data": "y" * 2**20}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
        return {"content": [{"type": "text", "text": json.dumps(params.get("arguments") or {})}]}
    if method == "ping":
        return {}
    return None


def main() -> None:
    if MODE == "long-lines":
        sys.stderr.write("x" * (4 * 1024 * 1024))
        sys.stderr.write("\ndone\n")
        sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message or MODE == "silent":
            continue
        result = answer(message["method"], message.get("params") or {})
        if result is None:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})


if __name__ == "__main__":
    main()
