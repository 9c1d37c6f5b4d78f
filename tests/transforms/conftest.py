"""Shared tools for transform tests: a function tool and a schema-only tool that record their calls."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Context, Tool, ToolResult
from toolweave.testing import fake_tool

SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "Filter": {
            "type": "object",
            "properties": {"field": {"type": "string"}, "value": {"$ref": "#/$defs/Scalar"}},
            "required": ["field"],
        },
        "Scalar": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "Credential": {"type": "object", "properties": {"token": {"type": "string"}}, "required": ["token"]},
    },
    "properties": {
        "q": {"type": "string", "description": "search terms"},
        "filter": {"$ref": "#/$defs/Filter"},
        "page": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 1},
        "options": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
        "credential": {"$ref": "#/$defs/Credential", "description": "the credential for the backend"},
    },
    "required": ["q", "credential"],
}


class Calls(list[dict[str, Any]]):
    """The arguments each call of a recording tool received."""


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def search_tool(calls: Calls) -> Tool:
    """A function tool: `search(q, limit=10, api_key="", debug=False)` returning its arguments."""

    async def search(q: str, limit: int = 10, api_key: str = "", debug: bool = False) -> dict[str, Any]:
        """Search the index.

        Args:
            q: what to look for
            limit: at most this many hits
            api_key: the backend key
            debug: include timings
        """
        received = {"q": q, "limit": limit, "api_key": api_key, "debug": debug}
        calls.append(received)
        return received

    return Tool.from_function(search)


@pytest.fixture
def schema_tool(calls: Calls) -> Tool:
    """A schema-only tool with `$defs`/`$ref`, `anyOf` and a nested object; echoes its arguments."""

    async def reply(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        calls.append(dict(arguments))
        return ToolResult(structured_content=dict(arguments))

    return fake_tool("lookup", SCHEMA, reply=reply)
