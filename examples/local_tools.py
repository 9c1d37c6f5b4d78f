"""A local toolweave server that `examples/gateway.yaml` mounts under the prefix `local`."""

from __future__ import annotations

from toolweave import Server

server = Server("local")


@server.tool(annotations={"readOnlyHint": True})
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@server.tool(annotations={"readOnlyHint": True})
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())
