"""The error hierarchy and masking: tool errors reach the client, internal errors never leak."""

from __future__ import annotations

import logging
import re

import pytest

from toolweave import InvalidArguments, Server, ToolError, ToolTimeout, ToolweaveError, UpstreamError
from toolweave.core.errors import ArgumentProblem, ConfigError, Rejected, UnknownPrompt, UnknownResource, UnknownTool


@pytest.mark.parametrize(
    "error",
    [
        ToolError,
        InvalidArguments,
        ToolTimeout,
        UpstreamError,
        Rejected,
        UnknownTool,
        UnknownPrompt,
        UnknownResource,
        ConfigError,
    ],
)
def test_every_error_derives_from_the_root(error: type[Exception]) -> None:
    assert issubclass(error, ToolweaveError)


def test_invalid_arguments_lists_each_problem() -> None:
    error = InvalidArguments("add", [ArgumentProblem("a", "expected integer"), ArgumentProblem("b.c", "too big")])
    assert str(error) == "Invalid arguments for tool 'add':\n- a: expected integer\n- b.c: too big"


def failing_server(**options: object) -> Server:
    server = Server("errors", **options)  # type: ignore[arg-type]

    @server.tool
    def leaky() -> str:
        raise KeyError("hunter2 at /srv/app/secrets.py")

    @server.tool
    def polite() -> str:
        raise ToolError("please try again tomorrow")

    return server


async def test_tool_error_messages_reach_the_client() -> None:
    result = await failing_server().call_tool("polite")
    assert result.is_error and result.text == "please try again tomorrow"


async def test_masked_errors_leak_no_message_type_path_or_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="toolweave.errors"):
        result = await failing_server().call_tool("leaky")
    assert result.is_error
    match = re.fullmatch(r"Error calling tool 'leaky' \(incident ([0-9a-f]{8})\)", result.text)
    assert match, result.text
    for leak in ("hunter2", "KeyError", "/srv/app", "Traceback", ".py"):
        assert leak not in result.text
    (record,) = [r for r in caplog.records if r.name == "toolweave.errors"]
    assert match.group(1) in record.getMessage() and record.exc_info is not None


async def test_unmasked_errors_show_type_and_message() -> None:
    result = await failing_server(mask_error_details=False).call_tool("leaky")
    assert result.text == "KeyError: 'hunter2 at /srv/app/secrets.py'"


async def test_unknown_tools_raise_in_process() -> None:
    with pytest.raises(UnknownTool, match="Unknown tool: nope"):
        await Server("x").call_tool("nope")

