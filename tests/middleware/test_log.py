"""`Logging`: one structured record per call, outcomes, redaction, incident ids."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

from toolweave import Context, FromEnv, InjectArgs, Server, Tool, ToolError, ToolResult
from toolweave.middleware import Logging, Timeout
from toolweave.testing import connect

SECRET = "sk-live-0123456789"


def _calls(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "toolweave.calls"]


def _server(*middleware: Any) -> Server:
    server = Server("logged", middleware=list(middleware))

    @server.tool
    def search(query: str, limit: int = 5) -> str:
        return f"{limit} results for {query}"

    @server.tool
    def refuse() -> str:
        raise ToolError("not today")

    @server.tool
    def crash() -> str:
        raise RuntimeError("database password is hunter2")

    @server.tool
    async def slow() -> str:
        await anyio.sleep(30)
        return "done"

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_one_record_per_call_with_structured_fields(caplog: pytest.LogCaptureFixture, mode: str) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    server = _server(Logging(allow_args=["limit"]))
    async with connect(server, mode=mode) as client:
        await client.call_tool("search", {"query": "private question", "limit": 3})
    (record,) = _calls(caplog)
    assert record.tool == "search"  # type: ignore[attr-defined]
    assert record.outcome == "ok"  # type: ignore[attr-defined]
    assert record.duration_ms >= 0  # type: ignore[attr-defined]
    assert record.request_id is not None  # type: ignore[attr-defined]
    assert record.client == "mcp"  # type: ignore[attr-defined]
    assert record.arguments == {"query": "<redacted>", "limit": 3}  # type: ignore[attr-defined]
    assert "private question" not in record.getMessage()


@pytest.mark.parametrize(
    ("tool", "outcome"), [("search", "ok"), ("refuse", "tool_error"), ("slow", "timeout"), ("crash", "error")]
)
async def test_outcome_names_how_the_call_ended(caplog: pytest.LogCaptureFixture, tool: str, outcome: str) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    server = _server(Logging(), Timeout(per_tool={"slow": 0.02}))
    await server.call_tool(tool, {"query": "q"} if tool == "search" else {})
    assert [record.outcome for record in _calls(caplog)] == [outcome]  # type: ignore[attr-defined]


async def test_an_is_error_result_is_a_tool_error(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")

    async def answer(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        return ToolResult.error("no such file")

    server = Server("iserror", middleware=[Logging()])
    server.add_tool(Tool(name="read", input_schema={"type": "object"}, run=answer))
    await server.call_tool("read")
    assert [record.outcome for record in _calls(caplog)] == ["tool_error"]  # type: ignore[attr-defined]


async def test_internal_error_record_carries_the_incident_id_the_client_sees(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    server = _server(Logging())
    result = await server.call_tool("crash")
    (record,) = _calls(caplog)
    assert f"(incident {record.incident})" in result.text  # type: ignore[attr-defined]
    assert "hunter2" not in result.text


async def test_injected_values_never_reach_the_record(caplog: pytest.LogCaptureFixture) -> None:
    """An injected argument is filled inside the tool, after the chain: even allow-listed, it never shows."""
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    seen: dict[str, Any] = {}

    async def base(arguments: dict[str, Any], ctx: Context) -> ToolResult:
        seen.update(arguments)
        return ToolResult(structured_content={"ok": True})

    async def inject(arguments: dict[str, Any], ctx: Context) -> ToolResult:  # what InjectArgs does
        return await base({**arguments, "api_key": SECRET}, ctx)

    schema = {"type": "object", "properties": {"query": {"type": "string"}}}
    tool = Tool(name="fetch", input_schema=schema, run=inject, hidden=frozenset({"api_key"}))
    server = Server("inject", middleware=[Logging(allow_args=["query", "api_key"], payload_sizes=True)])
    server.add_tool(tool)
    await server.call_tool("fetch", {"query": "weather"})
    refused = await server.call_tool("fetch", {"query": "weather", "api_key": "spoofed"})
    assert seen["api_key"] == SECRET and refused.is_error
    (record,) = _calls(caplog)  # the refused call never reached the chain
    assert record.arguments == {"query": "weather"}  # type: ignore[attr-defined]
    assert SECRET not in repr(record.__dict__)


async def test_payload_sizes_are_optional(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    await _server(Logging(payload_sizes=True)).call_tool("search", {"query": "q"})
    await _server(Logging()).call_tool("search", {"query": "q"})
    sized, plain = _calls(caplog)
    assert sized.request_bytes == len('{"query":"q","limit":5}')  # type: ignore[attr-defined]
    assert sized.response_bytes > 0  # type: ignore[attr-defined]
    assert not hasattr(plain, "request_bytes")


async def test_nothing_is_logged_when_the_logger_is_not_enabled(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="toolweave.calls")
    result = await _server(Logging()).call_tool("search", {"query": "q"})
    assert result.text == "5 results for q"
    assert _calls(caplog) == []


def test_allow_args_must_be_a_list_of_names() -> None:
    with pytest.raises(TypeError, match="list of argument names"):
        Logging(allow_args="query")


async def test_inside_a_timeout_a_deadline_cancellation_is_still_a_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    server = _server(Timeout(per_tool={"slow": 0.02}), Logging())
    assert (await server.call_tool("slow")).is_error
    assert [record.outcome for record in _calls(caplog)] == ["timeout"]  # type: ignore[attr-defined]


class Logged(logging.Handler):
    """Sets `done` when a call's record arrives (a call abandoned at its deadline ends later)."""

    def __init__(self) -> None:
        super().__init__()
        self.done = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "outcome"):
            self.done.set()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_inside_a_timeout_a_call_that_ignored_its_deadline_is_still_a_timeout(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    """A tool that shields itself returns after the deadline: the client gets a timeout, and the
    record said `ok`."""
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    server = Server("logged", middleware=[Timeout(default=0.02), Logging()])

    @server.tool
    async def stubborn() -> str:
        with anyio.CancelScope(shield=True):
            await anyio.sleep(0.1)
        return "late"

    logged = Logged()
    logging.getLogger("toolweave.calls").addHandler(logged)
    try:
        async with connect(server, mode=mode) as client:
            result = await client.call_tool("stubborn", {})
            with anyio.fail_after(5):  # over MCP the client is answered first; the tool ends later
                await logged.done.wait()
    finally:
        logging.getLogger("toolweave.calls").removeHandler(logged)
    assert result.is_error and "timed out" in result.content[0].text
    outcomes = [getattr(record, "outcome", None) for record in _calls(caplog)]
    assert outcomes[0] == "timeout"  # (then a record of the abandoned call ending, over MCP)


async def test_a_secret_a_parent_injects_is_redacted_in_a_mounted_childs_record(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's chain sees the parent's injected value as an ordinary (here allow-listed) argument."""
    caplog.set_level(logging.INFO, logger="toolweave.calls")
    monkeypatch.setenv("CHILD_API_KEY", SECRET)
    child = Server("child", middleware=[Logging(allow_args=["q", "api_key"])])

    @child.tool
    def get(q: str, api_key: str = "") -> str:
        return "ok" if api_key == SECRET else "no key"

    parent = Server("parent")
    parent.mount(child, prefix="c")
    parent.add_transform(InjectArgs(api_key=FromEnv("CHILD_API_KEY")), tools="c_get")
    assert (await parent.call_tool("c_get", {"q": "hello"})).text == "ok"
    (record,) = _calls(caplog)
    assert record.arguments == {"q": "hello", "api_key": "[redacted]"}  # type: ignore[attr-defined]

