"""explain(): origin, transforms in order, middleware chain in order, schema before and after."""

from __future__ import annotations

import io
import json

import pytest

from toolweave import Server, Tool, explain
from toolweave.testing import RecordingMiddleware, fake_tool
from toolweave.transforms import ExcludeArgs, InjectArgs, MaskErrors, Rename, TransformArgs


async def search(q: str, api_key: str, debug: bool = False) -> str:
    return q


def test_a_tool_shows_origin_transforms_and_schemas() -> None:
    tool = Tool.from_function(search).with_transforms(
        Rename("find"), TransformArgs({"q": "query"}), ExcludeArgs("debug"), InjectArgs(api_key="sk-1")
    )
    report = explain(tool, show=False)["find"]
    assert report.origin == f"function {__name__}.search" and report.kind == "function"
    assert report.original_name == "search"
    assert report.transforms == (
        "rename to 'find'",
        "arguments: q → Arg(name='query')",
        "exclude ['debug'] (their defaults are used)",
        "inject api_key from a constant",
    )
    assert list(report.schema_before["properties"]) == ["q", "api_key", "debug"]
    assert list(report.schema_after["properties"]) == ["query"]


def test_a_server_shows_mounts_and_middleware_in_order() -> None:
    child = Server("billing")
    child.add_tool(fake_tool("get", {"type": "object", "properties": {"id": {"type": "string"}}}))
    gateway = Server("gateway")
    gateway.add_middleware(RecordingMiddleware("outer"), RecordingMiddleware("inner"))
    gateway.mount(child, prefix="billing")
    gateway.add_transform(MaskErrors(), tools="billing_*")
    report = explain(gateway, show=False)["billing_get"]
    assert report.middleware == ("outer", "inner")
    assert report.original_name == "get" and "mount 'billing'" in report.origin
    assert report.transforms == (
        "mounted from server 'billing' with prefix 'billing'",
        "mask internal errors (ToolError passes through)",
    )


def test_it_prints_text_and_returns_json_able_data() -> None:
    out = io.StringIO()
    tool = Tool.from_function(search).with_transforms(InjectArgs(api_key="sk-live-9"))
    report = explain(tool, file=out)
    text = out.getvalue()
    assert "search" in text and "inject api_key from a constant" in text and "q: string" in text
    assert "sk-live-9" not in text
    json.dumps(report.to_dict())


def test_one_tool_of_a_server_by_name() -> None:
    server = Server("s")
    server.add_tool(search)
    assert [t.name for t in explain(server, "search", show=False).tools] == ["search"]
    with pytest.raises(KeyError, match="nope"):
        explain(server, "nope", show=False)


NOTE = "(a middleware that wraps the tool a call reaches runs around that tool instead)"


@pytest.mark.parametrize(("mounted", "name"), [(False, "call_tool"), (True, "c_call_tool")])
def test_call_tool_says_a_middleware_of_the_tool_it_reaches_runs_around_that_tool(mounted: bool, name: str) -> None:
    from toolweave.transforms import SearchTools

    child = Server("child", middleware=[RecordingMiddleware("every"), RecordingMiddleware("work", tools="work")])
    child.add_tool(fake_tool("work"))
    child.add_transform(SearchTools())
    server = Server("gateway") if mounted else child
    if mounted:
        server.mount(child, prefix="c")
    out = io.StringIO()
    report = explain(server, file=out)
    assert report[name].reaches and report[name].to_dict()["reaches"]
    assert f"middleware: every\n              {NOTE}" in out.getvalue()
    assert not report[name.replace("call_tool", "search_tools")].reaches
    assert out.getvalue().count(NOTE) == 1
