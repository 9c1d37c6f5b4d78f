"""A server with a large tool answer, resource and prompt, for config tests to import."""

from __future__ import annotations

from toolweave import Server

server = Server("docs")
server.add_tool(lambda: "z" * 10_000, name="huge", description="A very long answer.")
server.add_resource(lambda: "x" * 10_000, "memo://big", name="big")
server.add_prompt(lambda: "y" * 10_000, name="long")
