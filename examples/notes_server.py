"""A tiny notes MCP server over stdio (the upstream that `gateway.py` mounts).

Run it alone with `python examples/notes_server.py`; any MCP client can talk to it.
"""

from __future__ import annotations

from toolweave import Server, ToolError

server = Server("notes")
NOTES: dict[str, str] = {}


@server.tool(annotations={"idempotentHint": True})
def write(title: str, text: str) -> str:
    """Save a note.

    Args:
        title: The note's title.
        text: The note's text.
    """
    NOTES[title] = text
    return f"saved {title!r}"


@server.tool(annotations={"readOnlyHint": True})
def read(title: str) -> str:
    """Read a note back.

    Args:
        title: The note's title.
    """
    if title not in NOTES:
        raise ToolError(f"no note called {title!r}")
    return NOTES[title]


if __name__ == "__main__":
    server.run()
