"""A toolweave server with no task-capable tool (and no tags) whose tool asks the client for input.

Usage: python tw_input_upstream.py [http PORT]
"""

from __future__ import annotations

import sys

from toolweave import Context, InputRequired, Server, elicit

server = Server("tw-input-upstream")
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@server.tool
def approve(ctx: Context) -> str:
    """Ask who approves (the first round), then approve with the answer."""
    answer = ctx.input_responses.get("who")
    if answer is None:
        raise InputRequired({"who": elicit("Who approves?", NAME_FORM)}, state="asked")
    return f"approved by {answer['content']['name']}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
