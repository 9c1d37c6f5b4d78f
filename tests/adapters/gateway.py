"""One composed server the adapter tests share: an injected caller, a middleware, a failure."""

from __future__ import annotations

import re

from toolweave import Server, ToolError
from toolweave.testing import RecordingMiddleware
from toolweave.transforms import FromContext, InjectArgs


def gateway() -> tuple[Server, RecordingMiddleware]:
    """`weather(city)` with `user_id` injected from the caller, `forecast(days)` that fails past 7."""
    recorder = RecordingMiddleware()
    server = Server("gateway", middleware=[recorder])

    @server.tool
    def weather(city: str, user_id: str) -> dict[str, str]:
        """Current weather in a city."""
        return {"city": city, "sky": "clear", "for": user_id}

    @server.tool
    def forecast(days: int) -> list[str]:
        """A forecast for the next days."""
        if days > 7:
            raise ToolError("at most 7 days")
        return ["sun"] * days

    server.add_transform(InjectArgs(user_id=FromContext("auth.subject")), tools="weather")
    return server, recorder


PROVIDER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The tool names the strictest model providers accept (OpenAI, Anthropic)."""
LONG = "summarize_" + "x" * 80


def dotted() -> Server:
    """Tools whose names no model provider takes: `gh.search` (a mount's `.` separator), `gh_search`
    beside it, and one of 90 characters; each answers with its own name."""
    github = Server("github")
    github.add_tool(lambda: "gh.search", name="search")
    server = Server("dotted")
    server.mount(github, prefix="gh", separator=".")
    server.add_tool(lambda: "gh_search", name="gh_search")
    server.add_tool(lambda: LONG, name=LONG)
    return server
