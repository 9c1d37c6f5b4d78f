"""An upstream with a completer and a resource that changes: for completion and subscription forwarding.

Usage: python components.py
"""

from __future__ import annotations

import os

from toolweave import Server
from toolweave.server.completion import CompletionRequest

server = Server("components")
CITIES = ["Paris", "Parma", "Lima"]
count = 0


@server.prompt
def greet(city: str) -> str:
    """Greet a city."""
    return f"Hello {city}"


@server.resource("resource://{city}/weather")
def weather(city: str) -> str:
    """The weather of a city."""
    return f"sunny in {city}"


@server.resource("resource://counter")
def counter() -> str:
    """How many times `bump` ran."""
    return str(count)


@server.tool
def bump() -> int:
    """Count one more; subscribers of resource://counter hear of it."""
    global count
    count += 1
    server.resource_updated("resource://counter")
    return count


@server.tool
def pid() -> int:
    """This process's id (to end it)."""
    return os.getpid()


@server.completion
def complete(request: CompletionRequest) -> list[str]:
    return [f"{request.kind}:{city}" for city in CITIES if city.startswith(request.value)]


if __name__ == "__main__":
    server.run()
