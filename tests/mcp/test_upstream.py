"""Units of the upstream client: annotation conversion, failure descriptions, end-of-stream watch."""

from __future__ import annotations

import anyio
import mcp.types as mt
import pytest

from toolweave.core.tool import ToolAnnotations
from toolweave.mcp.convert import annotations_from_mcp
from toolweave.mcp.read_stream import WatchedStream
from toolweave.mcp.upstream_errors import describe_failure


def test_upstream_annotations_become_toolannotations_from_mcp() -> None:
    wire = mt.ToolAnnotations(title="Echo", read_only_hint=True, destructive_hint=False)
    assert annotations_from_mcp(wire) == ToolAnnotations(title="Echo", read_only_hint=True, destructive_hint=False)
    assert annotations_from_mcp(None) is None


def test_unknown_upstream_annotation_keys_are_ignored() -> None:
    wire = mt.ToolAnnotations.model_validate({"readOnlyHint": True, "x-vendor": 1})
    assert annotations_from_mcp(wire) == ToolAnnotations(read_only_hint=True)


def test_a_failure_is_described_by_its_innermost_cause() -> None:
    nested = BaseExceptionGroup("outer", [ExceptionGroup("inner", [FileNotFoundError("no such file")])])
    assert describe_failure(nested) == "FileNotFoundError: no such file"
    assert describe_failure(TimeoutError()) == "TimeoutError"


@pytest.mark.parametrize("close_sender", [True, False])
async def test_watched_stream_reports_the_end_of_the_connection(close_sender: bool) -> None:
    ended: list[bool] = []
    send, receive = anyio.create_memory_object_stream[int](1)
    watched = WatchedStream(receive, lambda: ended.append(True))
    await send.send(1)
    assert await watched.receive() == 1
    assert ended == []
    if close_sender:
        await send.aclose()
        assert [item async for item in watched] == []
        assert ended
    await watched.aclose()
    await send.aclose()
    assert ended
