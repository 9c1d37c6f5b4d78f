"""The resource registry: registration, duplicates under each policy, visibility, in-process use."""

from __future__ import annotations

import logging

import pytest

from toolweave import DuplicateError, InvalidArguments, Resource, Server, UnknownResource


def _resource(server: Server, text: str, uri: str = "resource://motd") -> None:
    server.add_resource(lambda: text, uri, name="motd")


async def _text(server: Server, uri: str = "resource://motd") -> str:
    return (await server.read_resource(uri)).text


def test_the_decorator_returns_the_function_unchanged() -> None:
    server = Server("s")

    @server.resource("resource://cities")
    def cities() -> list[str]:
        return ["Paris"]

    assert cities() == ["Paris"]


def test_the_decorator_needs_a_uri() -> None:
    server = Server("s")
    with pytest.raises(TypeError, match=r"@server\.resource needs a URI"):

        @server.resource  # type: ignore[arg-type]
        def cities() -> list[str]:
            return []


def test_mismatched_uri_parameters_are_rejected_at_registration() -> None:
    server = Server("s")
    with pytest.raises(TypeError, match=r"resource 'weather': the URI 'weather://\{city\}' has parameters"):

        @server.resource("weather://{city}")
        def weather(town: str) -> str:
            return town

    assert server.resources.local == {}


async def test_duplicates_raise_under_error() -> None:
    server = Server("s", on_duplicate="error")
    _resource(server, "first")
    with pytest.raises(DuplicateError, match="already has a resource 'resource://motd'"):
        _resource(server, "second")
    assert await _text(server) == "first"


async def test_duplicates_keep_the_first_under_ignore() -> None:
    server = Server("s", on_duplicate="ignore")
    _resource(server, "first")
    _resource(server, "second")
    assert await _text(server) == "first"


async def test_duplicates_replace_under_replace() -> None:
    server = Server("s", on_duplicate="replace")
    _resource(server, "first")
    _resource(server, "second")
    assert await _text(server) == "second"


async def test_duplicates_replace_and_log_under_warn(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("s", on_duplicate="warn")
    _resource(server, "first")
    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        _resource(server, "second")
    assert await _text(server) == "second"
    assert "already has a resource 'resource://motd'" in caplog.text


async def test_a_static_resource_wins_over_a_template() -> None:
    server = Server("s")
    server.add_resource(lambda name: f"template {name}", "user://{name}", name="user")
    server.add_resource(lambda: "static me", "user://me", name="me")
    assert await _text(server, "user://me") == "static me"
    assert await _text(server, "user://ada") == "template ada"


async def test_in_process_listing_and_errors() -> None:
    server = Server("s")
    server.add_resource(lambda: "x", "resource://a", name="a")
    server.add_resource(lambda n: n, "number://{n}", name="n")
    server.add_resource(lambda n: str(n + 1), "next://{n}", name="next")
    assert [r.uri for r in await server.list_resources()] == ["resource://a"]
    assert [r.uri for r in await server.list_resource_templates()] == ["number://{n}", "next://{n}"]
    with pytest.raises(UnknownResource, match="Unknown resource: resource://b"):
        await server.read_resource("resource://b")


async def test_template_parameters_convert_in_process() -> None:
    server = Server("s")

    def after(n: int) -> str:
        return str(n + 1)

    server.add_resource(after, "next://{n}")
    assert await _text(server, "next://41") == "42"
    with pytest.raises(InvalidArguments, match="n: Input should be a valid integer"):
        await server.read_resource("next://x")


async def test_remove_and_set_enabled() -> None:
    server = Server("s")
    _resource(server, "x")
    server.resources.set_enabled("resource://motd", False)
    assert await server.list_resources() == []
    server.resources.set_enabled("resource://motd", True)
    assert len(await server.list_resources()) == 1
    server.remove_resource("resource://motd")
    with pytest.raises(UnknownResource):
        server.remove_resource("resource://motd")


def test_add_resource_arguments_are_checked() -> None:
    server = Server("s")
    made = Resource.from_function(lambda: "x", "resource://x", name="x")
    assert server.add_resource(made) is made
    with pytest.raises(TypeError, match="needs its URI"):
        server.add_resource(lambda: "x")
    with pytest.raises(TypeError, match="not to a Resource"):
        server.add_resource(made, "resource://y")
