"""Resource templates with RFC 6570 operators (`{+path}`, `{?q,limit}`, `{&page}`) on a local
server, read through the official `mcp` client, directly and through a prefix mount."""

from __future__ import annotations

import json
import re
from typing import Any

import mcp
import mcp.types as mt
import pytest

from toolweave import Server
from toolweave.server.completion import CompletionRequest
from toolweave.testing import connect

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


def build() -> Server:
    server = Server("files")

    @server.resource("file:///{+path}")
    def file(path: str) -> str:
        return f"file {path}"

    @server.resource("repo://{owner}/{+path}/raw")
    def raw(owner: str, path: str) -> str:
        return f"{owner}: {path}"

    @server.resource("search://items{?q,limit}")
    def search(q: str = "", limit: int = 10) -> dict[str, Any]:
        return {"q": q, "limit": limit}

    @server.resource("logs://{service}{?level}{&page}")
    def logs(service: str, level: str = "info", page: int = 1) -> str:
        return f"{service} {level} {page}"

    @server.completion
    def complete(request: CompletionRequest) -> list[str]:
        return [f"{request.name}:{request.argument}={request.value}"]

    return server


async def text(client: Any, uri: str) -> str:
    [contents] = (await client.read_resource(uri)).contents
    assert isinstance(contents, mt.TextResourceContents) and contents.uri == uri
    return contents.text


@MODES
async def test_a_reserved_parameter_takes_a_whole_path(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert await text(client, "file:///docs/2024/a%20b.md") == "file docs/2024/a b.md"
        assert await text(client, "repo://acme/src/app/main.py/raw") == "acme: src/app/main.py"


@MODES
@pytest.mark.parametrize(
    ("uri", "found"),
    [
        ("search://items?limit=5&q=red%20car", {"q": "red car", "limit": 5}),
        ("search://items?q=x", {"q": "x", "limit": 10}),
        ("search://items", {"q": "", "limit": 10}),
        ("search://items?utm=ad&limit=2", {"q": "", "limit": 2}),
    ],
)
async def test_query_parameters_come_in_any_order_and_absent_ones_take_the_default(
    mode: str, uri: str, found: dict[str, Any]
) -> None:
    async with connect(build(), mode=mode) as client:
        assert json.loads(await text(client, uri)) == found


async def test_a_continued_query_parameter_is_read_and_converted() -> None:
    async with connect(build()) as client:
        assert await text(client, "logs://api?page=3&level=error") == "api error 3"
        assert await text(client, "logs://api") == "api info 1"


async def test_a_query_value_that_does_not_convert_is_invalid_params() -> None:
    async with connect(build()) as client:
        with pytest.raises(mcp.MCPError) as refused:
            await client.read_resource("search://items?limit=many")
    assert refused.value.error.code == mt.INVALID_PARAMS and "limit" in refused.value.error.message


async def test_templates_with_operators_are_listed_and_read_through_a_prefix_mount() -> None:
    parent = Server("parent")
    parent.mount(build(), prefix="ev")
    async with connect(parent) as client:
        listed = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        assert listed == [
            "file://ev//{+path}",
            "repo://ev/{owner}/{+path}/raw",
            "search://ev/items{?q,limit}",
            "logs://ev/{service}{?level}{&page}",
        ]
        assert await text(client, "repo://ev/acme/a/b/raw") == "acme: a/b"
        assert json.loads(await text(client, "search://ev/items?limit=5&q=x")) == {"q": "x", "limit": 5}


@pytest.mark.parametrize("argument", ["path", "q"])
async def test_completion_of_an_operator_parameter_reaches_the_mounted_childs_completer(argument: str) -> None:
    parent = Server("parent")
    parent.mount(build(), prefix="ev")
    template = {"path": "file://ev//{+path}", "q": "search://ev/items{?q,limit}"}[argument]
    ref = mt.ResourceTemplateReference(type="ref/resource", uri=template)
    async with connect(parent) as client:
        result = await client.complete(ref, {"name": argument, "value": "re"})
    child_template = {"path": "file:///{+path}", "q": "search://items{?q,limit}"}[argument]
    assert result.completion.values == [f"{child_template}:{argument}=re"]


def test_a_query_parameter_without_a_default_is_refused_at_registration() -> None:
    server = Server("s")
    with pytest.raises(TypeError, match=r"query parameters \['q'\] of the URI 'search://items\{\?q,limit\}'"):

        @server.resource("search://items{?q,limit}")
        def search(q: str, limit: int = 10) -> str:
            return q


@pytest.mark.parametrize("uri", ["res://{#part}", "res://x{/seg}", "res://{path*}"])
def test_an_operator_toolweave_cannot_serve_is_refused_naming_the_template(uri: str) -> None:
    server = Server("s")
    with pytest.raises(ValueError, match=f"resource URI template {re.escape(repr(uri))}: .* is not supported"):

        @server.resource(uri)
        def part() -> str:
            return ""


async def test_a_static_resource_then_the_first_registered_template_serves_a_uri() -> None:
    """The precedence rule is unchanged by operators: `file:///{name}` registered first serves
    `file:///a`; `{+path}` serves what `{name}` cannot (a path with `/`)."""
    server = Server("s")

    @server.resource("file:///readme")
    def readme() -> str:
        return "static"

    @server.resource("file:///{name}")
    def one(name: str) -> str:
        return f"one {name}"

    @server.resource("file:///{+path}")
    def deep(path: str) -> str:
        return f"deep {path}"

    async with connect(server) as client:
        found = [await text(client, uri) for uri in ("file:///readme", "file:///a", "file:///a/b")]
    assert found == ["static", "one a", "deep a/b"]
