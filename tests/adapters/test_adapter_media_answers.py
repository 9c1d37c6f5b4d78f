"""A tool answering with an image, or with a block no framework takes as a tool's answer (a
resource link, audio, a binary resource), reaches each framework's model as something it can
read: the image as the framework's own image, the others described in JSON without their bytes.
All three frameworks' models read `''` for such an answer.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.optional import require

require("langchain_core", "the langchain extra is not installed")
require("agents", "the openai-agents extra is not installed")
require("pydantic_ai", "the pydantic-ai extra is not installed")

from agents import ToolOutputImage, ToolOutputText
from agents.tool_context import ToolContext
from pydantic_ai import Agent, BinaryContent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolweave import Image, Server
from toolweave.adapters.langchain import structured_tools
from toolweave.adapters.openai_agents import function_tools
from toolweave.adapters.pydantic_ai import ToolweaveToolset
from toolweave.core.content import AudioContent, ImageContent, ResourceLink, TextContent

PNG = b"\x89PNG\r\n\x1a\n-chart-"
ENCODED = base64.b64encode(PNG).decode()
BROKEN = '{"type":"image","mimeType":"image/png","error":"the image data is not valid base64"}'
LINK = '{"type":"resource_link","uri":"file:///q3.csv","name":"q3","mimeType":"text/csv"}'


def charts() -> Server:
    """`chart` answers a caption and an image, `export` a resource link, `jingle` audio alone,
    `broken` an image whose data is not base64 (as an upstream may send one)."""
    server = Server("charts")

    @server.tool
    def chart() -> list[Any]:
        return ["Revenue by quarter", Image(data=PNG, format="png")]

    @server.tool
    def export() -> list[Any]:
        return [ResourceLink(uri="file:///q3.csv", name="q3", mime_type="text/csv")]

    @server.tool
    def jingle() -> list[Any]:
        return [AudioContent(data=ENCODED, mime_type="audio/wav")]

    @server.tool
    def broken() -> list[Any]:
        return [ImageContent(data="not*base64!", mime_type="image/png")]

    return server


async def test_the_tools_answer_without_a_text_block_but_the_caption() -> None:
    server = charts()
    for name in ("export", "jingle"):
        result = await server.call_tool(name)
        assert not result.is_error and not any(isinstance(block, TextContent) for block in result.content)


# -- LangChain ------------------------------------------------------------------------------------


async def test_langchain_answers_an_image_as_a_standard_image_block_after_its_caption() -> None:
    tool = {tool.name: tool for tool in structured_tools(charts())}["chart"]
    message = await tool.ainvoke({"type": "tool_call", "id": "c1", "name": "chart", "args": {}})
    [caption, image] = message.content
    assert caption["type"] == "text" and caption["text"] == "Revenue by quarter"
    assert (image["type"], image["base64"], image["mime_type"]) == ("image", ENCODED, "image/png")


@pytest.mark.parametrize(("name", "content"), [("export", LINK), ("jingle", '{"type":"audio","mimeType":"audio/wav"}')])
async def test_langchain_describes_other_blocks_without_their_bytes(name: str, content: str) -> None:
    tool = {tool.name: tool for tool in structured_tools(charts())}[name]
    message = await tool.ainvoke({"type": "tool_call", "id": "c1", "name": name, "args": {}})
    assert message.content == content


# -- OpenAI Agents --------------------------------------------------------------------------------


async def invoke(name: str) -> Any:
    tool = {tool.name: tool for tool in function_tools(charts())}[name]
    ctx: ToolContext[Any] = ToolContext(context=None, tool_name=name, tool_call_id="c1", tool_arguments="{}")
    return await tool.on_invoke_tool(ctx, "{}")


async def test_openai_agents_outputs_an_image_as_a_data_url_after_its_caption() -> None:
    assert await invoke("chart") == [
        ToolOutputText(text="Revenue by quarter"),
        ToolOutputImage(image_url=f"data:image/png;base64,{ENCODED}"),
    ]


async def test_openai_agents_describes_a_resource_link() -> None:
    assert await invoke("export") == LINK


# -- Pydantic AI ----------------------------------------------------------------------------------


async def test_pydantic_ai_hands_the_model_the_image_as_binary_content() -> None:
    handed: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("chart", {})])
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        handed.extend(request.parts)
        return ModelResponse(parts=[TextPart("seen")])

    await Agent(FunctionModel(respond), toolsets=[ToolweaveToolset(charts())]).run("draw")
    contents = repr(handed)
    assert "Revenue by quarter" in contents
    assert any(BinaryContent(data=PNG, media_type="image/png") == item for item in _items(handed))


def _items(parts: list[Any]) -> list[Any]:
    """Every value a request's parts hold (a tool return's content, a user prompt's items)."""
    found: list[Any] = []
    for part in parts:
        content = getattr(part, "content", None)
        found += list(content) if isinstance(content, list | tuple) else [content]
    return found


async def test_an_image_whose_data_is_not_base64_is_described_and_the_run_goes_on() -> None:
    """It ended the Pydantic AI run with `binascii.Error`, and the other frameworks passed it on
    for the model provider to refuse."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("broken", {})])
        return ModelResponse(parts=[TextPart(repr(_items(messages[-1].parts)))])

    run = await Agent(FunctionModel(respond), toolsets=[ToolweaveToolset(charts())]).run("draw")
    assert BROKEN in run.output
    assert await invoke("broken") == BROKEN
    tool = {tool.name: tool for tool in structured_tools(charts())}["broken"]
    assert (await tool.ainvoke({})) == BROKEN
