"""MaskErrors: a per-tool policy; masked errors reveal nothing about the failure."""

from __future__ import annotations

import logging
import re

import pytest

from toolweave import Server, Tool, ToolError, TransformError
from toolweave.transforms import MaskErrors


async def boom(path: str) -> str:
    raise FileNotFoundError(f"secret-detail: cannot open {path}")


async def fail_for_client(x: int) -> int:
    raise ToolError("x must be positive")


def serve(tool: Tool, *, mask: bool = False) -> Server:
    server = Server("t", mask_error_details=mask)
    server.add_tool(tool)
    return server


async def test_masked_error_shows_none_of_message_type_path_or_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tool = MaskErrors().apply(Tool.from_function(boom))
    with caplog.at_level(logging.ERROR):
        result = await serve(tool).call_tool("boom", {"path": "/etc/shadow"})
    assert result.is_error
    for leak in ("secret-detail", "FileNotFoundError", "/etc/shadow", "Traceback", ".py", "line "):
        assert leak not in result.text
    assert re.fullmatch(r"Error calling tool 'boom' \(incident [0-9a-f]+\)", result.text)
    assert "secret-detail" in caplog.text  # operators still get the full story


async def test_tool_policy_overrides_an_unmasked_server() -> None:
    result = await serve(MaskErrors().apply(Tool.from_function(boom))).call_tool("boom", {"path": "p"})
    assert "secret-detail" not in result.text


async def test_custom_message_fills_name_and_incident() -> None:
    tool = MaskErrors("{name} is unavailable (ref {incident})").apply(Tool.from_function(boom))
    result = await serve(tool).call_tool("boom", {"path": "p"})
    assert re.fullmatch(r"boom is unavailable \(ref [0-9a-f]+\)", result.text)


async def test_tool_errors_pass_through_by_default() -> None:
    result = await serve(MaskErrors().apply(Tool.from_function(fail_for_client))).call_tool("fail_for_client", {"x": 1})
    assert result.text == "x must be positive"


async def test_passthrough_can_be_emptied() -> None:
    tool = MaskErrors(passthrough=()).apply(Tool.from_function(fail_for_client))
    result = await serve(tool).call_tool("fail_for_client", {"x": 1})
    assert "positive" not in result.text


def test_message_with_unknown_fields_is_refused() -> None:
    with pytest.raises(TransformError, match="name"):
        MaskErrors("{tool} failed")


def test_passthrough_must_hold_exception_types() -> None:
    with pytest.raises(TransformError, match="exception types"):
        MaskErrors(passthrough=("ToolError",))  # type: ignore[arg-type]
