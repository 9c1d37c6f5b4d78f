"""Building a `Prompt` from a function: name, description, arguments, conversion, rejections."""

from __future__ import annotations

from typing import Annotated

import anyio
import pytest
from pydantic import Field

from toolweave.core.context import Context
from toolweave.core.prompt import Prompt, PromptArgument
from toolweave.core.validation import ArgumentErrors


def review(code: str, language: str = "python") -> str:
    """Ask for a code review.

    Args:
        code: the code to review
    """
    return f"Review this {language}: {code}"


def test_name_and_description_come_from_the_function() -> None:
    prompt = Prompt.from_function(review)
    assert (prompt.name, prompt.description) == ("review", "Ask for a code review.")


def test_options_override_name_title_description_tags_meta() -> None:
    prompt = Prompt.from_function(
        review, name="code_review", title="Code review", description="Review.", tags={"dev"}, meta={"v": 1}
    )
    assert (prompt.name, prompt.title, prompt.description) == ("code_review", "Code review", "Review.")
    assert prompt.tags == frozenset({"dev"}) and prompt.meta == {"v": 1}


def test_arguments_are_required_when_they_have_no_default() -> None:
    prompt = Prompt.from_function(review)
    assert prompt.arguments == (
        PromptArgument("code", "the code to review", required=True),
        PromptArgument("language", None, required=False),
    )


def test_field_and_annotated_descriptions_describe_arguments() -> None:
    def ask(
        topic: Annotated[str, Field(description="what to ask about")],
        tone: Annotated[str, "how to ask"] = "polite",
        length: int = Field(default=3, description="sentences"),
    ) -> str:
        return topic

    described = {arg.name: arg.description for arg in Prompt.from_function(ask).arguments}
    assert described == {"topic": "what to ask about", "tone": "how to ask", "length": "sentences"}


def test_a_context_parameter_is_not_an_argument() -> None:
    def greet(name: str, ctx: Context) -> str:
        return name

    assert [arg.name for arg in Prompt.from_function(greet).arguments] == ["name"]


def test_a_lambda_needs_a_name() -> None:
    with pytest.raises(TypeError, match="lambda has no usable name: pass name= when making a prompt"):
        Prompt.from_function(lambda: "x")
    assert Prompt.from_function(lambda: "x", name="hello").name == "hello"


def test_star_args_are_rejected() -> None:
    def many(*topics: str) -> str:
        return ""

    with pytest.raises(TypeError, match=r"prompt 'many', parameter 'topics': \*args is not supported"):
        Prompt.from_function(many)


def test_star_kwargs_are_rejected() -> None:
    def loose(**options: str) -> str:
        return ""

    with pytest.raises(TypeError, match=r"prompt 'loose', parameter 'options': \*\*kwargs is not supported"):
        Prompt.from_function(loose)


def test_string_arguments_convert_to_the_declared_types() -> None:
    def plan(days: int, strict: bool, tags: list[str]) -> str:
        return ""

    validated = Prompt.from_function(plan).validator.validate({"days": "3", "strict": "false", "tags": '["a"]'})
    assert validated == {"days": 3, "strict": False, "tags": ["a"]}


def test_an_argument_that_does_not_convert_is_named() -> None:
    def plan(days: int) -> str:
        return ""

    with pytest.raises(ArgumentErrors) as caught:
        Prompt.from_function(plan).validator.validate({"days": "soon"})
    assert [problem.path for problem in caught.value.problems] == ["days"]


def test_sync_and_async_functions_render() -> None:
    async def shout(text: str) -> str:
        return text.upper()

    async def both() -> tuple[str | None, str | None]:
        sync = await Prompt.from_function(review).run({"code": "x", "language": "go"}, Context())
        asynchronous = await Prompt.from_function(shout).run({"text": "hi"}, Context())
        return sync.messages[0].text, asynchronous.messages[0].text

    assert anyio.run(both) == ("Review this go: x", "HI")


def test_a_hand_written_prompt_checks_required_arguments() -> None:
    async def render(arguments: dict[str, object], ctx: Context) -> object:
        raise AssertionError("not reached")

    prompt = Prompt(name="p", run=render, arguments=(PromptArgument("topic", required=True),))  # type: ignore[arg-type]
    with pytest.raises(ArgumentErrors, match="topic"):
        prompt.validator.validate({})
