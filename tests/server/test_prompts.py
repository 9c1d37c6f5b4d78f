"""The prompt registry: registration, duplicates under each policy, visibility, in-process use."""

from __future__ import annotations

import functools
import logging
from typing import Any

import pytest

from toolweave import DuplicateError, InvalidArguments, Message, Prompt, Server, ToolError, UnknownPrompt


def _prompt(server: Server, text: str, name: str = "greet") -> None:
    server.add_prompt(lambda: text, name=name)


async def _text(server: Server, name: str = "greet") -> str | None:
    return (await server.get_prompt(name)).messages[0].text


def test_the_decorator_returns_the_function_still_callable() -> None:
    server = Server("s")

    @server.prompt
    def greet(name: str) -> str:
        return f"Hi {name}"

    assert greet("Ada") == "Hi Ada"
    assert greet.__name__ == "greet" and isinstance(greet.prompt, Prompt)


def test_a_name_can_be_given_positionally() -> None:
    server = Server("s")

    @server.prompt("hello")
    def greet() -> str:
        return "Hi"

    assert list(server.prompts.local) == ["hello"]


def test_an_invalid_prompt_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="prompt name 'bad name' is not valid"):
        Server("s").add_prompt(lambda: "x", name="bad name")


async def test_duplicates_raise_under_error() -> None:
    server = Server("s", on_duplicate="error")
    _prompt(server, "first")
    with pytest.raises(DuplicateError, match="already has a prompt named 'greet'"):
        _prompt(server, "second")
    assert await _text(server) == "first"


async def test_duplicates_keep_the_first_under_ignore() -> None:
    server = Server("s", on_duplicate="ignore")
    _prompt(server, "first")
    _prompt(server, "second")
    assert await _text(server) == "first"


async def test_duplicates_replace_under_replace() -> None:
    server = Server("s", on_duplicate="replace")
    _prompt(server, "first")
    _prompt(server, "second")
    assert await _text(server) == "second"


async def test_duplicates_replace_and_log_under_warn(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("s", on_duplicate="warn")
    _prompt(server, "first")
    with caplog.at_level(logging.WARNING, logger="toolweave.server"):
        _prompt(server, "second")
    assert await _text(server) == "second"
    assert "already has a prompt named 'greet'" in caplog.text


async def test_in_process_get_prompt_accepts_strings_and_values() -> None:
    server = Server("s")

    @server.prompt
    def repeat(word: str, times: int) -> list[Message]:
        return [Message(word) for _ in range(times)]

    assert len((await server.get_prompt("repeat", {"word": "x", "times": "3"})).messages) == 3
    assert len((await server.get_prompt("repeat", {"word": "x", "times": 2})).messages) == 2


async def test_in_process_errors_are_raised() -> None:
    server = Server("s")
    server.add_prompt(lambda n: "x", name="needs")
    with pytest.raises(UnknownPrompt):
        await server.get_prompt("nope")
    with pytest.raises(InvalidArguments, match="Invalid arguments for prompt 'needs'"):
        await server.get_prompt("needs", {})


async def test_an_unmasked_server_shows_the_error_type() -> None:
    server = Server("s", mask_error_details=False)

    def boom() -> str:
        raise ValueError("bad input")

    server.add_prompt(boom)
    with pytest.raises(ToolError, match="ValueError: bad input"):
        await server.get_prompt("boom")


async def test_remove_prompt() -> None:
    server = Server("s")
    _prompt(server, "x")
    server.remove_prompt("greet")
    assert await server.list_prompts() == []
    with pytest.raises(UnknownPrompt):
        server.remove_prompt("greet")


async def test_disable_by_tag() -> None:
    server = Server("s")
    server.add_prompt(lambda: "x", name="internal", tags={"internal"})
    server.add_prompt(lambda: "y", name="public")
    server.disable(tags={"internal"})
    assert [p.name for p in await server.list_prompts()] == ["public"]


def test_add_prompt_accepts_a_ready_prompt_without_options() -> None:
    server = Server("s")
    made = Prompt.from_function(lambda: "x", name="ready")
    assert server.add_prompt(made) is made
    with pytest.raises(TypeError, match="options apply when building a prompt from a function"):
        server.add_prompt(made, name="other")


def test_listeners_hear_prompt_changes_only() -> None:
    server = Server("s")
    prompt_events: list[str] = []
    tool_events: list[str] = []
    server.prompts.subscribe(lambda: prompt_events.append("prompts"))
    server.subscribe(lambda: tool_events.append("tools"))
    _prompt(server, "x")
    assert (prompt_events, tool_events) == (["prompts"], [])


async def test_add_prompt_keeps_the_users_own_decorators() -> None:
    def shout(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> str:
            return str(fn(*args, **kwargs)).upper()

        return wrapper

    @shout
    def hello(name: str) -> str:
        return f"hi {name}"

    server = Server("s")
    server.add_prompt(hello)
    assert [a.name for a in server.prompts.local["hello"].arguments] == ["name"]
    assert (await server.get_prompt("hello", {"name": "ada"})).messages[0].text == "HI ADA"
