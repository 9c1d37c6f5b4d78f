"""server.add_transform with the transforms: local, mounted and remote tools, globs and tags, compile time only."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import subprocess_env
from toolweave import DuplicateError, Server, Tool, explain
from toolweave.server.remote import RemoteServer
from toolweave.testing import RecordingMiddleware
from toolweave.transforms import Annotate, Authorize, InjectArgs, MaskErrors, Rename, TransformArgs
from toolweave.transforms.argmap import MappedRun


def make_server(seen: list[dict[str, Any]]) -> Server:
    server = Server("docs")

    @server.tool(tags={"search"})
    async def search(q: str, api_key: str = "") -> str:
        seen.append({"q": q, "api_key": api_key})
        return q

    @server.tool
    async def fetch(url: str, api_key: str = "") -> str:
        seen.append({"url": url, "api_key": api_key})
        return url

    return server


async def test_glob_selects_local_tools() -> None:
    seen: list[dict[str, Any]] = []
    server = make_server(seen)
    server.add_transform(InjectArgs(api_key="k"), tools="sea*")
    entries = server.catalog.entries
    assert "api_key" not in entries["search"].tool.input_schema["properties"]
    assert "api_key" in entries["fetch"].tool.input_schema["properties"]
    await server.call_tool("search", {"q": "x"})
    assert seen[-1] == {"q": "x", "api_key": "k"}


def test_tags_select_tools() -> None:
    server = make_server([])
    server.add_transform(Annotate(read_only=True), tags={"search"})
    hints = {name: e.tool.annotations for name, e in server.catalog.entries.items()}
    assert hints["search"] is not None and hints["search"].read_only_hint is True
    assert hints["fetch"] is None


def test_tags_and_a_predicate_must_both_hold() -> None:
    """The predicate was dropped when tags were given too: every tagged tool was chosen."""
    server = make_server([])
    server.add_tool(lambda q: q, name="lookup", tags={"search"})
    server.add_transform(Annotate(read_only=True), tools=lambda tool: tool.name != "lookup", tags={"search"})
    hints = {name: e.tool.annotations for name, e in server.catalog.entries.items()}
    assert hints["search"] is not None and (hints["lookup"], hints["fetch"]) == (None, None)


def test_a_single_string_as_tags_is_refused() -> None:
    """Beside `tools=`, `tags="search"` selected the tools tagged 's', 'e', ...: none, silently."""
    server = make_server([])
    with pytest.raises(TypeError, match=r"tags must be a list .* \(write \['search'\]\)"):
        server.add_transform(Annotate(read_only=True), tools="s*", tags="search")
    assert server.transforms == ()


def test_an_empty_list_of_tools_selects_none() -> None:
    """`tools=[]` beside `prompts=`: the prompts only (it selected every tool)."""
    server = make_server([])

    @server.prompt
    def brief() -> str:
        return "brief"

    server.add_transform(Authorize(scopes=["admin"]), tools=[], prompts="brief")
    assert all(entry.tool.access is None for entry in server.catalog.entries.values())
    assert [prompt.access is not None for prompt in server.prompts.catalog.prompts] == [True]


async def test_a_rename_onto_another_local_tools_name_is_refused_and_taken_back() -> None:
    """It was accepted, and then every list and call of the server failed (even of other tools)."""
    server = make_server([])
    clash = "'fetch' would be claimed twice: by local tool 'search' and by local tool 'fetch'"
    with pytest.raises(DuplicateError, match=clash):
        server.add_transform(Rename("fetch"), tools="search")
    assert sorted(tool.name for tool in server.catalog.tools) == ["fetch", "search"]
    assert (await server.call_tool("search", {"q": "x"})).content[0].text == "x"  # type: ignore[union-attr]


async def test_transforms_apply_to_mounted_tools_by_their_exposed_name() -> None:
    seen: list[dict[str, Any]] = []
    child = make_server(seen)
    gateway = Server("gateway")
    gateway.mount(child, prefix="docs")
    gateway.add_transform(InjectArgs(api_key="gateway-key"), tools="docs_*")
    gateway.add_transform(TransformArgs({"q": "query"}), tools="docs_search")
    await gateway.call_tool("docs_search", {"query": "x"})
    await gateway.call_tool("docs_fetch", {"url": "u"})
    assert seen == [{"q": "x", "api_key": "gateway-key"}, {"url": "u", "api_key": "gateway-key"}]


@pytest.mark.usefixtures("untraced")
async def test_child_and_parent_transforms_fuse_across_a_mount_without_middleware() -> None:
    seen: list[dict[str, Any]] = []
    child = make_server(seen)
    child.add_transform(InjectArgs(api_key="child-key"))
    gateway = Server("gateway")
    gateway.mount(child, prefix="docs")
    gateway.add_transform(TransformArgs({"q": "query"}), tools="docs_search")
    tool = gateway.catalog.entries["docs_search"].tool
    mapped = MappedRun.of(tool.run)
    assert mapped is not None and mapped.base is child.local_tools["search"]
    await gateway.call_tool("docs_search", {"query": "x"})
    assert seen[-1] == {"q": "x", "api_key": "child-key"}


async def test_child_middleware_still_runs_under_a_parent_transform() -> None:
    seen: list[dict[str, Any]] = []
    child = make_server(seen)
    recorder = RecordingMiddleware("child")
    child.add_middleware(recorder)
    gateway = Server("gateway")
    gateway.mount(child, prefix="docs")
    gateway.add_transform(TransformArgs({"q": "query"}), tools="docs_search")
    await gateway.call_tool("docs_search", {"query": "x"})
    assert [call.arguments for call in recorder.calls] == [{"q": "x", "api_key": ""}]


async def test_live_mount_changes_get_the_parent_transforms() -> None:
    child = Server("child")
    gateway = Server("gateway")
    gateway.mount(child, prefix="c")
    gateway.add_transform(MaskErrors(), tools="c_*")

    @child.tool
    async def late(x: int) -> int:
        raise RuntimeError("secret detail")

    result = await gateway.call_tool("c_late", {"x": 1})
    assert "secret detail" not in result.text


@dataclass(frozen=True)
class Counting:
    """A transform that counts how often it is applied."""

    applied: list[str] = field(default_factory=list)

    def apply(self, tool: Tool) -> Tool:
        self.applied.append(tool.name)
        return tool


async def test_transforms_run_at_compile_time_never_per_call() -> None:
    counting = Counting()
    server = make_server([])
    server.add_transform(counting)
    for _ in range(5):
        await server.call_tool("search", {"q": "x"})
    assert sorted(counting.applied) == ["fetch", "search"]


def test_two_transforms_producing_the_same_name_name_both_origins() -> None:
    server = make_server([])
    server.add_transform(Rename("lookup"), tools="search")
    with pytest.raises(DuplicateError, match=r"'lookup'.*local tool 'search'.*local tool 'fetch'"):
        server.add_transform(Rename("lookup"), tools="fetch")  # refused when added, not at every list
    assert sorted(tool.name for tool in server.catalog.tools) == ["fetch", "lookup"]


async def test_transforms_apply_to_remote_tools_over_stdio() -> None:
    upstream = Path(__file__).parent / "upstreams" / "ll_upstream.py"
    remote = RemoteServer.stdio(sys.executable, [str(upstream)], env=subprocess_env())
    gateway = Server("gateway")
    gateway.mount(remote, prefix="up")
    gateway.add_transform(Rename("shout"), tools="up_echo")
    gateway.add_transform(TransformArgs({"steps": "repeat"}), tools="shout")
    gateway.add_transform(InjectArgs(text="from the gateway"), tools="shout")  # a plain constant: not redacted
    async with gateway:
        tool = gateway.catalog.get("shout").tool
        result = await gateway.call_tool("shout", {"repeat": 0})
        spoofed = await gateway.call_tool("shout", {"text": "client"})
    assert list(tool.input_schema["properties"]) == ["repeat"]
    assert result.structured_content == {"echo": "from the gateway"}
    assert spoofed.is_error and "text: unexpected argument" in spoofed.text
    report = explain(tool, show=False).tools[0]
    assert report.kind == "remote" and report.original_name == "echo"
