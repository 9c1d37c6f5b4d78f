"""Every transform works on a schema-only tool ($defs/$ref, anyOf, nested objects): valid schema, working call."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolweave import Server, Tool, ToolResult, TransformError
from toolweave.testing import fake_tool
from toolweave.transforms import (
    Annotate,
    Arg,
    ExcludeArgs,
    Forward,
    InjectArgs,
    InjectContext,
    MapResult,
    MaskErrors,
    Rename,
    TransformArgs,
    forward,
)

from .conftest import Calls


async def narrow(query: str, token: str = "t") -> ToolResult:
    return await forward(q=query, credential={"token": token})


TRANSFORMS: dict[str, tuple[Any, dict[str, Any]]] = {
    "Rename": (Rename("find"), {"q": "x", "credential": {"token": "t"}}),
    "TransformArgs": (
        TransformArgs({"q": Arg(name="query", description="terms"), "page": Arg(type=str, default="2")}),
        {"query": "x", "credential": {"token": "t"}},
    ),
    "ExcludeArgs": (ExcludeArgs("page", "options"), {"q": "x", "credential": {"token": "t"}}),
    "InjectArgs": (InjectArgs(credential={"token": "server"}), {"q": "x"}),
    "InjectContext": (InjectContext("options"), {"q": "x", "credential": {"token": "t"}}),
    "MaskErrors": (MaskErrors(), {"q": "x", "credential": {"token": "t"}}),
    "Annotate": (Annotate(read_only=True, tags={"s"}), {"q": "x", "credential": {"token": "t"}}),
    "MapResult": (
        MapResult(lambda r: {"n": len(r.structured_content)}, output_schema=dict[str, int]),
        {"q": "x", "credential": {"token": "t"}},
    ),
    "Forward": (Forward(narrow), {"query": "x"}),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
async def test_transform_works_on_a_schema_tool(schema_tool: Tool, calls: Calls, name: str) -> None:
    transform, arguments = TRANSFORMS[name]
    tool = transform.apply(schema_tool)
    Draft202012Validator.check_schema(dict(tool.input_schema))
    server = Server("s")
    server.add_tool(tool)
    result = await server.call_tool(tool.name, arguments)
    assert not result.is_error, result.text
    assert calls and calls[-1]["q"] == "x"


@pytest.mark.parametrize(
    "transform",
    [InjectArgs(n="five"), TransformArgs({"n": Arg(default="abc")})],
    ids=["injected constant", "new default"],
)
def test_a_value_that_does_not_fit_a_schema_tools_argument_is_refused_when_applied(transform: Any) -> None:
    """As on a function tool: it was accepted, and the upstream got `n="five"` at every call."""
    tool = fake_tool("t", {"type": "object", "properties": {"n": {"type": "integer"}}})
    with pytest.raises(TransformError, match=r"argument 'n': the (value|default) given for it does not fit its type"):
        tool.with_transforms(transform)
    assert tool.with_transforms(InjectArgs(n=5)).input_schema["properties"] == {}
