"""The values injected into a call are scrubbed from everything the tool sends back — whatever
the failure's type, through mounts and config files — and the rule for which values are secrets."""

from __future__ import annotations

import json
import logging
import sys
import types
from typing import Any

import anyio
import pytest
from mcp import Client
from pydantic import BaseModel

from toolweave import Context, Server, Tool, get_context
from toolweave.core.content import EmbeddedResource, TextContent, TextResourceContents
from toolweave.core.result import ToolResult
from toolweave.transforms import FromEnv, InjectArgs
from toolweave.transforms.redact import scrub_result

KEY = "S3CR3T-0123456789abcdef"


class Page(BaseModel):
    number: int


def mounted_local_tools() -> Server:
    """Local tools behind a mount; the gateway injects the key into them."""
    child = Server("child")

    @child.tool
    def parse(api_key: str) -> str:
        """A pydantic error quoting its input (its text is not built from its arguments)."""
        return str(Page.model_validate({"number": api_key}))

    @child.tool
    def open_file(api_key: str) -> str:
        """An OSError naming the file."""
        with open(f"/nonexistent/{api_key}") as file:
            return file.read()

    @child.tool
    def chained(api_key: str) -> str:
        """An error with a note, raised from another that quotes the key."""
        try:
            raise LookupError(f"no account for {api_key}")
        except LookupError as cause:
            error = RuntimeError("lookup failed")
            error.add_note(f"while using {api_key}")
            raise error from cause

    @child.tool
    async def reporting(api_key: str, ctx: Context) -> str:
        """Progress and log messages quoting the key."""
        await ctx.report_progress(1, 1, f"signing with {api_key}")
        await ctx.warning(f"key {api_key} expires soon")
        return "signed"

    @child.tool
    async def ambient(api_key: str) -> str:
        """The same, through the request's context as `get_context()` finds it."""
        ctx = get_context()
        await ctx.report_progress(1, 1, f"signing with {api_key}")
        await ctx.warning(f"key {api_key} expires soon")
        return "signed"

    gateway = Server("gateway", mask_error_details=False)  # failures shown as `Type: message`
    gateway.mount(child, prefix="c")
    gateway.add_transform(InjectArgs(api_key=FromEnv("REDACT_KEY")), tools="c_*")
    return gateway


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDACT_KEY", KEY)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_failures_whose_text_is_not_their_arguments_are_scrubbed(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolweave.errors")
    async with Client(mounted_local_tools().as_mcp(), mode=mode) as client:
        results = {name: await client.call_tool(name, {}) for name in ("c_parse", "c_open_file", "c_chained")}
    texts = {name: result.content[0].text for name, result in results.items()}
    assert all(result.is_error for result in results.values())
    assert texts["c_parse"].startswith("RedactedError: ValidationError: 1 validation error for Page")
    assert "input_value='[redacted]'" in texts["c_parse"]
    assert texts["c_open_file"] == "FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/[redacted]'"
    assert texts["c_chained"] == "RuntimeError: lookup failed"
    assert KEY not in str(texts) and KEY not in caplog.text  # the logged tracebacks, causes and notes too
    assert "while using [redacted]" in caplog.text and "no account for [redacted]" in caplog.text


@pytest.mark.parametrize("tool", ["c_reporting", "c_ambient"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_and_log_messages_of_the_call_are_scrubbed(mode: str, tool: str) -> None:
    """Whether the tool takes its context as a parameter or from `get_context()` (which gave the
    unscrubbed context of the request: the key went out in clear)."""
    sent: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        sent.append(str(message))

    async def on_log(params: Any) -> None:
        sent.append(str(params.data))

    async with Client(mounted_local_tools().as_mcp(), mode=mode, logging_callback=on_log, log_level="info") as client:
        result = await client.call_tool(tool, {}, progress_callback=on_progress)
        with anyio.fail_after(5):
            while len(sent) < 2:  # noqa: ASYNC110 - the log notification may trail the result
                await anyio.sleep(0.01)
    assert result.content[0].text == "signed"
    assert sorted(sent) == ["key [redacted] expires soon", "signing with [redacted]"]


async def test_the_rule_short_values_caller_values_and_plain_constants_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGION", "eu")

    def echo(text: str, key: str, region: str, unit: str) -> str:
        return f"{text} {key} {region} {unit}"

    server = Server("s")
    server.add_tool(
        Tool.from_function(echo).with_transforms(
            InjectArgs(key=FromEnv("REDACT_KEY"), region=FromEnv("REGION"), unit="celsius-degrees")
        )
    )
    result = await server.call_tool("echo", {"text": "queue"})
    # 8+ characters from the environment: a secret; "eu" (it would garble "queue") and a plain
    # constant (an operator's setting; `Secret(...)` makes one a secret) are not
    assert result.text == "queue [redacted] eu celsius-degrees"


async def test_a_config_constant_expanded_from_the_environment_is_a_secret() -> None:
    from toolweave.config import build
    from toolweave.config.loading import validate

    def echo(text: str, api_key: str, unit: str) -> str:
        return f"{text} {api_key} {unit}"

    module = types.ModuleType("redact_config_tools")
    module.echo = echo  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        args = {"api_key": {"inject": "${REDACT_CONFIG_KEY}"}, "unit": {"inject": "celsius-degrees"}}
        data = {"python": [{"import": "redact_config_tools:echo", "tools": {"echo": {"args": args}}}]}
        composed = build(validate(data, environ={"REDACT_CONFIG_KEY": KEY}))
        result = await composed.server.call_tool("echo", {"text": "hi"})
    finally:
        del sys.modules[module.__name__]
    assert result.text == "hi [redacted] celsius-degrees"


TEXT = f"GET /v1?key={KEY}"
WHERE_A_RESULT_HOLDS_TEXT = {
    "a text block": ToolResult(content=[TextContent("ok"), TextContent(TEXT)]),
    "embedded text": ToolResult(content=[EmbeddedResource(TextResourceContents(uri="note://1", text=TEXT))]),
    "structured content": ToolResult(content=[TextContent("ok")], structured_content={"url": [TEXT]}),
    "a structured key": ToolResult(content=[TextContent("ok")], structured_content={TEXT: 1}),
    "_meta": ToolResult(content=[TextContent("ok")], meta={"source": TEXT}),
}


@pytest.mark.parametrize("result", WHERE_A_RESULT_HOLDS_TEXT.values(), ids=WHERE_A_RESULT_HOLDS_TEXT)
def test_a_result_is_scrubbed_wherever_it_holds_a_secret(result: ToolResult) -> None:
    scrubbed = scrub_result(result, [KEY])
    assert KEY not in repr(scrubbed)
    assert "GET /v1?key=[redacted]" in repr(scrubbed)
    assert KEY in repr(result)  # the tool's own result is not changed


def test_a_result_holding_no_secret_is_passed_on_as_it_is() -> None:
    result = ToolResult(
        content=[TextContent("ok"), EmbeddedResource(TextResourceContents(uri="note://1", text="fine"))],
        structured_content={"url": ["fine"]},
        meta={"source": "fine"},
    )
    assert scrub_result(result, [KEY]) is result


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_secret_quoted_url_encoded_or_json_escaped_is_redacted_too(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An upstream quoting the URL it was called with writes `%2B` for `+`; a JSON body, `\"`.
    from urllib.parse import quote, quote_plus

    secret = 'S3CR3T+abc=def&x/"q'
    monkeypatch.setenv("ODD_KEY", secret)
    server = Server("quoting", mask_error_details=False)  # (the error's text goes to the client)

    @server.tool
    def fetch(key: str) -> str:
        raise RuntimeError(f"GET /v1?key={quote_plus(key)} and /{quote(key, safe='')} failed; body {key!r}")

    @server.tool
    def echo(key: str) -> dict[str, str]:
        return {"url": f"/v1/{quote(key)}", "json": json.dumps({"key": key})}

    server.add_transform(InjectArgs(key=FromEnv("ODD_KEY")))
    async with Client(server.as_mcp(), mode=mode) as client:
        failed = await client.call_tool("fetch", {})
        echoed = await client.call_tool("echo", {})
    sent = json.dumps([failed.model_dump(mode="json"), echoed.model_dump(mode="json")])
    for form in (secret, quote(secret), quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]):
        assert form not in sent, form
    assert failed.is_error and failed.content[0].text.count("[redacted]") == 3
    assert echoed.structured_content == {"url": "/v1/[redacted]", "json": '{"key": "[redacted]"}'}


def test_a_held_credential_is_let_go_when_its_holder_is_collected() -> None:
    # (a config reloaded without an upstream's Bearer: its token must not stay in flight for ever)
    import gc

    from toolweave.transforms.redact import IN_FLIGHT, HeldSecret

    held = HeldSecret()
    held.hold("ghp_first_0123456789")
    held.hold("ghp_second_0123456789")
    line = "sent ghp_first_0123456789 and ghp_second_0123456789"
    assert IN_FLIGHT.scrub(line) == "sent [redacted] and [redacted]"
    del held
    gc.collect()
    assert IN_FLIGHT.scrub(line) == line
