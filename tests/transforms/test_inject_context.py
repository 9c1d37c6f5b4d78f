"""InjectContext: the request Context passed into a parameter of a function you don't own."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Context, Server, Tool, TransformError
from toolweave.transforms import InjectContext


def lookup(key: str, context: Any = None) -> str:
    return f"{key} in request {context.request_id}"


async def test_context_parameter_is_hidden_and_receives_the_context() -> None:
    tool = InjectContext("context").apply(Tool.from_function(lookup, run_in_thread=False))
    assert list(tool.input_schema["properties"]) == ["key"]
    server = Server("t")
    server.add_tool(tool)
    result = await server.call_tool("lookup", {"key": "k"}, ctx=Context(request_id="r9"))
    assert result.text == "k in request r9"


async def test_client_cannot_send_the_context_parameter() -> None:
    tool = InjectContext("context").apply(Tool.from_function(lookup, run_in_thread=False))
    server = Server("t")
    server.add_tool(tool)
    result = await server.call_tool("lookup", {"key": "k", "context": {"request_id": "spoof"}})
    assert result.is_error and "context: unexpected argument" in result.text


def test_missing_parameter_names_tool_and_argument() -> None:
    with pytest.raises(TransformError, match=r"tool 'lookup', argument 'ctx'"):
        InjectContext("ctx").apply(Tool.from_function(lookup))
