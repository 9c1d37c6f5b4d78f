"""`LimitResult`: results cut to the limits, visibly, still valid against the output schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from toolweave import Server, Tool, ToolResult
from toolweave.core.content import ImageContent, TextContent
from toolweave.testing import connect
from toolweave.transforms.limit_result import META_KEY, MIN_BYTES, LimitResult


def returning(result: ToolResult, output_schema: dict[str, Any] | None = None) -> Tool:
    """A tool that returns `result` as it is."""

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return result

    return Tool(name="t", input_schema={"type": "object"}, output_schema=output_schema, run=run)


async def limited(tool: Tool, **limits: Any) -> ToolResult:
    return await tool.with_transforms(LimitResult(**limits)).run({}, None)  # type: ignore[arg-type]


def shown(text: str) -> Any:
    """The JSON a cut text shows, its marker taken off."""
    head, marker, _ = text.partition("… [truncated")
    assert marker, f"no truncation marker in {text[-80:]!r}"
    return json.loads(head)


ITEMS = {"type": "object", "properties": {"result": {"type": "array"}}, "x-toolweave-wrap-result": True}


class Row(BaseModel):
    id: int
    text: str


class Page(BaseModel):
    title: str
    rows: list[Row]


def big_page(rows: int = 100_000) -> Page:
    """About 10 MB of JSON."""
    return Page(title="report", rows=[Row(id=i, text="x" * 80) for i in range(rows)])


async def test_a_10_mb_result_is_cut_to_the_limit_and_stays_valid() -> None:
    server = Server("limits")

    @server.tool
    def report() -> Page:
        return big_page()

    server.add_transform(LimitResult(max_bytes=64_000))
    async with connect(server) as client:
        tool = (await client.list_tools()).tools[0]
        result = await client.call_tool("report", {})
    assert not result.is_error
    data = result.structured_content
    Draft202012Validator(tool.output_schema).validate(data)
    assert len(json.dumps(data, separators=(",", ":")).encode()) <= 64_000
    assert len(result.content[0].text.encode()) <= 64_000
    assert shown(result.content[0].text) == data
    assert 0 < len(data["rows"]) < 100_000
    truncated = result.meta[META_KEY]
    assert truncated["bytes"] > 10_000_000
    assert truncated["limit"] == 64_000
    assert truncated["items"] == 100_000 - len(data["rows"])


async def test_text_is_cut_with_a_visible_marker_within_the_limit() -> None:
    tool = Tool.from_function(lambda: "é" * 1000, name="long").with_transforms(LimitResult(max_bytes=100))
    result = await tool.run({}, None)  # type: ignore[arg-type]
    text = result.text
    assert len(text.encode()) <= 100
    assert text.endswith("… [truncated: 2000 → 100 bytes]")
    assert text.startswith("é")
    assert result.meta == {META_KEY: {"bytes": 2000, "limit": 100, "items": 0}}


async def test_a_block_too_large_is_dropped_and_the_small_ones_after_it_kept_and_counted() -> None:
    image = ImageContent(data="A" * 3000, mime_type="image/png")
    tool = returning(ToolResult([TextContent("caption first"), image, TextContent("caption after")]))
    result = await limited(tool, max_bytes=1000)
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    assert texts[:2] == ["caption first", "caption after"] and len(result.content) == 3
    assert texts[2].startswith("… [truncated: 3026 → 1000 bytes")
    assert result.meta == {META_KEY: {"bytes": 3026, "limit": 1000, "items": 1}}


async def test_results_within_the_limits_pass_through_unchanged() -> None:
    inner = ToolResult([TextContent("short")])

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return inner

    tool = Tool(name="t", input_schema={"type": "object"}, run=run).with_transforms(LimitResult(max_bytes=100))
    assert await tool.run({}, None) is inner  # type: ignore[arg-type]


async def test_max_items_cuts_arrays_and_content_blocks() -> None:
    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult([TextContent(str(i)) for i in range(5)] + [ImageContent("aGk=", "image/png")])

    tool = Tool(name="t", input_schema={"type": "object"}, run=run).with_transforms(LimitResult(max_items=2))
    result = await tool.run({}, None)  # type: ignore[arg-type]
    assert [block.text for block in result.content] == ["0", "1"]  # type: ignore[union-attr]
    assert result.meta[META_KEY]["items"] == 4


async def test_a_cut_that_breaks_the_schema_is_an_error_not_an_invalid_result() -> None:
    schema = {"type": "object", "properties": {"ids": {"type": "array", "minItems": 5}}, "required": ["ids"]}

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult([TextContent("ids")], {"ids": list(range(10))})

    tool = Tool(name="ids", input_schema={"type": "object"}, output_schema=schema, run=run)
    result = await tool.with_transforms(LimitResult(max_items=3)).run({}, None)  # type: ignore[arg-type]
    assert result.is_error
    assert "cannot be cut within its output schema (ids: minItems)" in result.text


async def test_structured_drop_removes_the_output_schema_and_keeps_text() -> None:
    server = Server("limits")

    @server.tool
    def report() -> Page:
        return big_page(1000)

    server.add_transform(LimitResult(max_bytes=1000, structured="drop"))
    async with connect(server) as client:
        tool = (await client.list_tools()).tools[0]
        result = await client.call_tool("report", {})
    assert tool.output_schema is None
    assert result.structured_content is None
    assert len(result.content[0].text.encode()) <= 1000
    assert "[truncated:" in result.content[0].text


@pytest.mark.parametrize(
    ("options", "message"),
    [({}, "needs max_bytes, max_items or both"), ({"max_bytes": 0}, "max_bytes must be a positive integer")],
)
def test_bad_limits_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LimitResult(**options)


@pytest.mark.parametrize("limits", [{"max_items": 2}, {"max_bytes": 300}, {"max_bytes": 300, "max_items": 5}])
async def test_a_json_text_in_any_spacing_is_rewritten_from_the_cut_data(limits: dict[str, Any]) -> None:
    """An API's pretty-printed body (not toolweave's compact JSON) shows the cut data, not all of it."""
    items = [{"id": i, "name": "é"} for i in range(100)]
    body = json.dumps(items, indent=2)  # non-compact, non-ASCII escaped: as an API may answer
    result = await limited(returning(ToolResult([TextContent(body)], {"result": items}), ITEMS), **limits)
    cut = result.structured_content["result"]
    assert 0 < len(cut) < 100
    assert shown(result.text) == cut
    assert result.text.endswith(f"{100 - len(cut)} items dropped]")
    assert result.meta[META_KEY] == {
        "bytes": len(body.encode()),
        "limit": limits.get("max_bytes"),
        "items": 100 - len(cut),
    }
    if "max_bytes" in limits:
        assert len(result.text.encode()) <= limits["max_bytes"]


async def test_a_cut_structured_result_says_so_in_its_text_and_not_in_its_data() -> None:
    result = await limited(Tool.from_function(_strings), max_bytes=100)
    assert result.structured_content == {"result": []}
    assert result.text.startswith("[]… [truncated")
    assert len(result.text.encode()) <= 100
    assert result.meta[META_KEY] == {"bytes": 10_000_004, "limit": 100, "items": 1}


def _strings() -> list[str]:
    return ["z" * 10_000_000]


async def test_a_text_that_does_not_show_the_data_gets_the_marker_at_its_end() -> None:
    result = await limited(
        returning(ToolResult([TextContent("100 ids")], {"result": list(range(100))}), ITEMS), max_items=3
    )
    assert result.structured_content == {"result": [0, 1, 2]}
    assert result.text == "100 ids… [truncated: 97 items dropped]"


async def test_a_cut_with_no_text_block_adds_one_for_the_marker() -> None:
    result = await limited(returning(ToolResult([], {"result": list(range(100))}), ITEMS), max_items=3)
    assert result.text == "[truncated: 97 items dropped]"


async def test_a_string_result_shown_as_itself_is_cut_with_its_data() -> None:
    schema = {"type": "object", "properties": {"result": {"type": "string"}}, "x-toolweave-wrap-result": True}
    result = await limited(
        returning(ToolResult([TextContent("x" * 500)], {"result": "x" * 500}), schema), max_bytes=100
    )
    text, cut = result.text, result.structured_content["result"]
    assert 0 < len(cut) < 500
    assert text.startswith(cut + "… [truncated: 502 → 100 bytes]")
    assert len(text.encode()) <= 100


async def test_a_json_text_over_the_limit_whose_data_fits_is_sent_compact_not_cut() -> None:
    items = list(range(20))
    body = json.dumps(items, indent=4)
    assert len(body.encode()) > 100 >= len(json.dumps(items, separators=(",", ":")))
    result = await limited(returning(ToolResult([TextContent(body)], {"result": items}), ITEMS), max_bytes=100)
    assert result.text == json.dumps(items, separators=(",", ":"))
    assert result.structured_content == {"result": items}
    assert result.meta is None


def _total(result: ToolResult) -> int:
    return sum(
        len(block.text.encode()) if isinstance(block, TextContent) else len(block.data) for block in result.content
    )  # type: ignore[union-attr]


def _blocks(*texts: str) -> ToolResult:
    return ToolResult([TextContent(text) for text in texts])


@pytest.mark.parametrize("max_bytes", [MIN_BYTES, 65, 100, 101, 150])
@pytest.mark.parametrize(
    "result",
    [
        _blocks("x" * 10_000),
        _blocks("a" * 99, "b" * 50),  # the first block nearly fills the budget: the marker must still fit
        _blocks("é" * 5000),
        _blocks("a" * 40, "b" * 40, "c" * 40),
        ToolResult([ImageContent("aGk=" * 100, "image/png"), TextContent("x" * 200)]),
        ToolResult([TextContent(json.dumps(list(range(1000))))], {"result": list(range(1000))}),
        ToolResult([TextContent("s" * 100_000)], {"result": ["s" * 100_000]}),
    ],
)
async def test_a_result_never_exceeds_max_bytes(result: ToolResult, max_bytes: int) -> None:
    schema = ITEMS if result.structured_content is not None else None
    cut = await limited(returning(result, schema), max_bytes=max_bytes)
    assert sum(len(block.text.encode()) for block in cut.content) <= max_bytes  # type: ignore[union-attr]
    if _total(result) > max_bytes:
        assert "[truncated" in cut.text
    if cut.structured_content is not None:
        assert len(json.dumps(cut.structured_content["result"], separators=(",", ":"))) <= max_bytes


def test_a_max_bytes_too_small_for_the_marker_is_refused() -> None:
    with pytest.raises(ValueError, match=r"max_bytes must be at least 64 \(room for the truncation marker"):
        LimitResult(max_bytes=10)


async def test_structured_drop_drops_structured_content_within_the_limits_too() -> None:
    result = await limited(
        returning(ToolResult([TextContent("[1]")], {"result": [1]}), ITEMS), max_bytes=100, structured="drop"
    )
    assert result.structured_content is None
    assert result.text == "[1]"


async def test_a_json_text_without_a_schema_is_cut_as_data_and_stays_json() -> None:
    # (an API's answer or an unannotated list: no output schema, no structured content)
    answer = json.dumps({"items": [{"id": i, "name": "n" * 40} for i in range(200)], "total": 200}, indent=2)
    result = await limited(returning(ToolResult([TextContent(answer)])), max_bytes=1000, max_items=5)
    text = result.content[0].text
    assert len(text.encode()) <= 1000 and result.structured_content is None
    data = shown(text)
    assert len(data["items"]) <= 5 and data["total"] == 200
    assert result.meta is not None and result.meta[META_KEY]["items"] >= 195


async def test_max_items_alone_cuts_a_json_list_text() -> None:
    result = await limited(returning(ToolResult([TextContent(json.dumps(list(range(50))))])), max_items=3)
    assert result.content[0].text == "[0,1,2]… [truncated: 47 items dropped]"


@pytest.mark.parametrize("text", ['{"broken": ' + "x" * 300, "[" + "1," * 600 + "2", "plain words " * 30])
async def test_a_long_text_that_is_not_a_json_value_is_cut_as_text(text: str) -> None:
    result = await limited(returning(ToolResult([TextContent(text)])), max_bytes=100, max_items=3)
    cut = result.content[0].text
    assert len(cut.encode()) <= 100 and cut.endswith(" bytes]")
    assert text.startswith(cut.partition("… [truncated")[0])


@pytest.mark.parametrize("structured", ["keep", "drop"])
async def test_an_indented_json_text_whose_compact_form_fits_is_sent_compact_without_structured_content(
    structured: str,
) -> None:
    rows = [{"id": i, "name": f"row {i}"} for i in range(20)]
    indented = json.dumps(rows, indent=4)
    assert len(indented.encode()) > 1000 >= len(json.dumps(rows, separators=(",", ":")).encode())
    result = await limited(returning(ToolResult([TextContent(indented)])), max_bytes=1000, structured=structured)
    assert result.structured_content is None and not result.is_error
    assert json.loads(result.content[0].text) == rows and len(result.content[0].text.encode()) <= 1000
