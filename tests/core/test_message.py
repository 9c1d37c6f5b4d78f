"""How a prompt function's return value becomes messages."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from toolweave.core.content import EmbeddedResource, Image, ImageContent, TextContent, TextResourceContents
from toolweave.core.message import Message, PromptResult, to_prompt_result


def test_a_string_is_one_user_message() -> None:
    result = to_prompt_result("Hello")
    assert [(m.role, m.text) for m in result.messages] == [("user", "Hello")]


def test_a_message_keeps_its_role() -> None:
    result = to_prompt_result(Message("Sure.", role="assistant"))
    assert [(m.role, m.text) for m in result.messages] == [("assistant", "Sure.")]


def test_a_list_is_a_conversation_in_order() -> None:
    result = to_prompt_result(["Hi", Message("Hello!", role="assistant"), "How are you?"])
    assert [(m.role, m.text) for m in result.messages] == [
        ("user", "Hi"),
        ("assistant", "Hello!"),
        ("user", "How are you?"),
    ]


def test_a_tuple_is_a_conversation_too() -> None:
    assert len(to_prompt_result(("a", "b")).messages) == 2


@dataclass
class _ForeignPromptMessage:
    role: str
    content: object


@dataclass
class _ForeignText:
    text: str
    type: str = "text"


def test_a_prompt_message_like_object_is_converted() -> None:
    result = to_prompt_result(_ForeignPromptMessage("assistant", _ForeignText("from the SDK")))
    assert [(m.role, m.text) for m in result.messages] == [("assistant", "from the SDK")]


def test_a_role_and_content_dict_is_a_message() -> None:
    result = to_prompt_result([{"role": "assistant", "content": "done"}])
    assert [(m.role, m.text) for m in result.messages] == [("assistant", "done")]


def test_a_content_block_is_one_user_message() -> None:
    block = EmbeddedResource(TextResourceContents("memo://1", "remember"))
    (message,) = to_prompt_result(block).messages
    assert message.role == "user" and message.content is block


def test_a_media_helper_becomes_its_content_block() -> None:
    (message,) = to_prompt_result(Image(data=b"\x89PNG", format="png")).messages
    assert isinstance(message.content, ImageContent) and message.content.mime_type == "image/png"


class _Plan(BaseModel):
    steps: list[str]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": 1}, '{"a": 1}'),
        (42, "42"),
        (_Plan(steps=["x"]), '{"steps": ["x"]}'),
    ],
)
def test_anything_else_is_converted_to_text(value: object, text: str) -> None:
    assert to_prompt_result(value).messages[0].text == text


def test_none_is_no_messages() -> None:
    assert to_prompt_result(None).messages == []


def test_a_prompt_result_passes_through() -> None:
    result = PromptResult([Message("x")], description="d")
    assert to_prompt_result(result) is result


def test_a_message_accepts_a_raw_string_as_text_content() -> None:
    assert Message("hi").content == TextContent("hi")


def test_a_message_rejects_an_unknown_role() -> None:
    with pytest.raises(ValueError, match="'user' or 'assistant'"):
        Message("hi", role="system")  # type: ignore[arg-type]


def test_sdk_content_types_convert_to_content_blocks() -> None:
    import mcp.types as mt

    image = mt.ImageContent(type="image", data="iVBO", mime_type="image/png")
    resource = mt.EmbeddedResource(
        type="resource", resource=mt.TextResourceContents(uri="memo://1", text="note", mime_type="text/plain")
    )
    converted = to_prompt_result([_ForeignPromptMessage("user", image), _ForeignPromptMessage("user", resource)])
    assert converted.messages[0].content == ImageContent("iVBO", "image/png")
    assert converted.messages[1].content == EmbeddedResource(TextResourceContents("memo://1", "note", "text/plain"))
