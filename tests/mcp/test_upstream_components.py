"""Upstream prompts and resources: pagination and the conversion of what `prompts/get` / `resources/read` return."""

from __future__ import annotations

import mcp.types as mt
import pytest

from toolweave.core.content import BlobResourceContents, EmbeddedResource, ImageContent, TextResourceContents
from toolweave.core.errors import UpstreamError
from toolweave.mcp.convert_components import from_mcp_prompt_result, from_mcp_read_result
from toolweave.mcp.errors import protocol_error
from toolweave.mcp.upstream_components import MAX_PAGES, all_pages


def _pages(pages: dict[str | None, tuple[list[str], str | None]]) -> tuple[list[str | None], object]:
    asked: list[str | None] = []

    async def fetch(params: mt.PaginatedRequestParams | None) -> mt.ListPromptsResult:
        cursor = params.cursor if params else None
        asked.append(cursor)
        names, next_cursor = pages[cursor]
        return mt.ListPromptsResult(prompts=[mt.Prompt(name=name) for name in names], next_cursor=next_cursor)

    return asked, fetch


async def test_all_pages_follows_the_cursor_to_the_end() -> None:
    asked, fetch = _pages({None: (["a", "b"], "2"), "2": (["c"], "3"), "3": ([], None)})
    items = await all_pages(fetch, "prompts", "notes")  # type: ignore[arg-type]
    assert [item.name for item in items] == ["a", "b", "c"]
    assert asked == [None, "2", "3"]


async def test_all_pages_stops_when_the_upstream_repeats_a_cursor() -> None:
    asked, fetch = _pages({None: (["a"], "x"), "x": (["b"], "x")})
    items = await all_pages(fetch, "prompts", "notes")  # type: ignore[arg-type]
    assert [item.name for item in items] == ["a", "b"]
    assert asked == [None, "x"]


async def test_a_list_without_end_is_cut_with_a_warning_naming_the_upstream(caplog: pytest.LogCaptureFixture) -> None:
    """The warning said "an upstream's prompts list", not which of the gateway's upstreams."""

    async def fetch(params: mt.PaginatedRequestParams | None) -> mt.ListPromptsResult:
        page = int(params.cursor) if params and params.cursor else 0
        return mt.ListPromptsResult(prompts=[mt.Prompt(name=f"p{page}")], next_cursor=str(page + 1))

    items = await all_pages(fetch, "prompts", "notes")
    assert len(items) == MAX_PAGES
    assert [record.getMessage() for record in caplog.records] == [
        f"[notes] the upstream's prompts list goes on past {MAX_PAGES} pages; the rest is left out"
    ]


def test_a_get_prompt_result_keeps_roles_content_description_and_meta() -> None:
    wire = mt.GetPromptResult(
        description="by hand",
        messages=[
            mt.PromptMessage(role="user", content=mt.ImageContent(type="image", data="AAAA", mime_type="image/png")),
            mt.PromptMessage(
                role="assistant",
                content=mt.EmbeddedResource(
                    type="resource", resource=mt.BlobResourceContents(uri="x://b", blob="AQ==", mime_type="a/b")
                ),
            ),
        ],
        _meta={"k": 1},
    )
    result = from_mcp_prompt_result(wire)
    assert [message.role for message in result.messages] == ["user", "assistant"]
    assert result.messages[0].content == ImageContent("AAAA", "image/png")
    assert result.messages[1].content == EmbeddedResource(BlobResourceContents("x://b", "AQ==", "a/b"))
    assert (result.description, result.meta) == ("by hand", {"k": 1})


def test_a_read_result_keeps_text_blobs_and_mime_types() -> None:
    wire = mt.ReadResourceResult(
        contents=[
            mt.TextResourceContents(uri="x://t", text="hi", mime_type="text/markdown", _meta={"m": True}),
            mt.BlobResourceContents(uri="x://b", blob="AQ=="),
        ]
    )
    assert from_mcp_read_result(wire).contents == [
        TextResourceContents("x://t", "hi", "text/markdown", {"m": True}),
        BlobResourceContents("x://b", "AQ==", None),
    ]


def test_an_upstream_refusal_as_invalid_params_stays_invalid_params() -> None:
    refused = protocol_error(UpstreamError("upstream 'gh' refused ...", code=mt.INVALID_PARAMS), "repo://gh/x")
    failed = protocol_error(UpstreamError("upstream 'gh' is not connected", code=None), "repo://gh/x")
    assert (refused.error.code, refused.error.data) == (mt.INVALID_PARAMS, {"uri": "repo://gh/x"})
    assert (failed.error.code, failed.error.message) == (mt.INTERNAL_ERROR, "upstream 'gh' is not connected")
