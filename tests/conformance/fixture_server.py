"""The toolweave server the official MCP conformance suite is run against.

The suite (`@modelcontextprotocol/conformance`) drives fixture tools, prompts and resources by
fixed names (`test_simple_text`, `test_tool_with_progress`, ...), over streamable HTTP only. This
module builds them with toolweave's public API, the way a user would, and serves them:

    python -m tests.conformance.fixture_server PORT      # http://127.0.0.1:PORT/mcp

Scenarios that need something toolweave does not have are listed, with a reason each, in
`baseline-<spec>.yml` beside this file.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Annotated, Any

import anyio
from pydantic import Field

from tests.conformance import fixture_input
from toolweave import (
    AudioContent,
    CompletionRequest,
    Context,
    EmbeddedResource,
    ImageContent,
    MissingCapability,
    Server,
    TextContent,
    TextResourceContents,
    Tool,
    ToolResult,
)
from toolweave.mcp.events import MemoryEventStore

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV_EMPTY = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

server = Server("toolweave-conformance-fixture", version="0.1.0")


@server.tool
def test_simple_text() -> str:
    """Returns one text block."""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> ImageContent:
    """Returns one image block."""
    return ImageContent(data=PNG_1X1, mime_type="image/png")


@server.tool
def test_audio_content() -> AudioContent:
    """Returns one audio block."""
    return AudioContent(data=WAV_EMPTY, mime_type="audio/wav")


@server.tool
def test_embedded_resource() -> EmbeddedResource:
    """Returns one embedded text resource."""
    return EmbeddedResource(
        TextResourceContents(
            uri="test://embedded-resource",
            text="This is an embedded resource content.",
            mime_type="text/plain",
        )
    )


@server.tool
def test_multiple_content_types() -> list[Any]:
    """Returns text, an image and an embedded resource."""
    return [
        TextContent("Multiple content types test:"),
        ImageContent(data=PNG_1X1, mime_type="image/png"),
        EmbeddedResource(
            TextResourceContents(
                uri="test://mixed-content-resource",
                text='{"test": "data", "value": 123}',
                mime_type="application/json",
            )
        ),
    ]


@server.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Sends three log messages while it runs."""
    for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(message)
        await anyio.sleep(0.02)
    return "Tool with logging executed successfully"


@server.tool
async def test_logging_tool(ctx: Context) -> str:
    """Sends log messages (only delivered when the request asked for a log level)."""
    await ctx.info("Logging tool called")
    return "Logging tool executed"


@server.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 out of 100; returns the request's progress token."""
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100, f"Completed step {step} of 100")
        await anyio.sleep(0.02)
    return str(ctx.meta.get("progress_token", 0))


@server.tool
def test_error_handling() -> str:
    """Always fails: the client gets an `isError` result."""
    raise RuntimeError("This tool intentionally returns an error for testing")


REGION_HEADER = {"x-mcp-header": "Region"}


@server.tool
def test_x_mcp_header(
    region: Annotated[
        str,
        Field(description="Mirrored into the Mcp-Param-Region header", json_schema_extra=REGION_HEADER),
    ] = "<none>",
) -> str:
    """Echoes a parameter that clients mirror into an HTTP header (SEP-2243)."""
    return f"region={region}"


@server.tool
def test_missing_capability(ctx: Context) -> str:
    """Needs the client's `sampling` capability: without it, JSON-RPC error -32021."""
    if "sampling" not in ctx.client_capabilities:
        raise MissingCapability("sampling")
    return "Client declared sampling capability; proceeding."


def _dynamic_tool() -> str:
    """A tool that exists only while `test_trigger_tool_change` runs."""
    return "dynamic"


@server.tool
def test_trigger_tool_change() -> str:
    """Adds and removes a tool, so clients are told the tool list changed."""
    server.add_tool(_dynamic_tool, name="test_dynamic_tool")
    server.remove_tool("test_dynamic_tool")
    return "tool list changed"


JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


async def _schema_tool(arguments: dict[str, Any], ctx: Context) -> ToolResult:
    return ToolResult([TextContent("json_schema_2020_12_tool")])


server.add_tool(
    Tool(
        name="json_schema_2020_12_tool",
        description="A hand-written input schema using JSON Schema 2020-12 keywords, listed unchanged.",
        input_schema=JSON_SCHEMA_2020_12,
        run=_schema_tool,
    )
)


# -- prompts ---------------------------------------------------------------------------------------


@server.prompt
def test_simple_prompt() -> str:
    """A prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Any]:
    """A prompt carrying an embedded resource."""
    text = "Embedded resource content for testing."
    embedded = TextResourceContents(uri=resourceUri, text=text, mime_type="text/plain")
    return [EmbeddedResource(embedded), "Please process the embedded resource above."]


@server.prompt
def test_prompt_with_image() -> list[Any]:
    """A prompt carrying an image."""
    return [ImageContent(data=PNG_1X1, mime_type="image/png"), "Please analyze the image above."]


def _dynamic_prompt() -> str:
    """A prompt that exists only while `test_trigger_prompt_change` runs."""
    return "dynamic"


@server.tool
def test_trigger_prompt_change() -> str:
    """Adds and removes a prompt, so clients are told the prompt list changed."""
    server.add_prompt(_dynamic_prompt, name="test_dynamic_prompt")
    server.remove_prompt("test_dynamic_prompt")
    return "prompt list changed"


@server.completion
def complete(request: CompletionRequest) -> list[str]:
    """Suggests values for `test_prompt_with_arguments`' arguments."""
    if request.kind == "prompt" and request.name == "test_prompt_with_arguments":
        return [word for word in ("paris", "park", "party") if word.startswith(request.value)]
    return []


# -- resources -------------------------------------------------------------------------------------


@server.resource("test://static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (a 1x1 PNG)."""
    return base64.b64decode(PNG_1X1)


@server.resource("test://template/{id}/data", mime_type="application/json")
def template_data(id: str) -> str:
    """A resource template: the id comes from the URI."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource("test://watched-resource", mime_type="text/plain")
def watched_resource() -> str:
    """A resource clients may subscribe to."""
    return "Watched resource content"


# -- transport -------------------------------------------------------------------------------------


@server.tool
async def test_reconnection(ctx: Context) -> str:
    """Logs before and after a pause, on a resumable SSE stream."""
    await ctx.info("Before disconnect")
    await anyio.sleep(0.2)
    await ctx.info("After reconnect")
    return "Reconnection test completed"


fixture_input.register(server)


def main(argv: list[str]) -> None:
    """Serve the fixture on 127.0.0.1:PORT/mcp, with resumable SSE streams."""
    port = int(argv[1]) if len(argv) > 1 else 3001
    server.run("http", host="127.0.0.1", port=port, event_store=MemoryEventStore(), retry_interval=100)


if __name__ == "__main__":
    main(sys.argv)
