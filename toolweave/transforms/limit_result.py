"""`LimitResult`: bound what one call may send back, visibly and without breaking the schema.

A result over the limits is cut down, never refused:

- **structured content** keeps to the output schema: every array is cut to `max_items`, then
  arrays (then strings) are shortened evenly until the JSON fits in `max_bytes`; the cut data
  is checked against the output schema once — if it no longer fits the schema (a `minItems`,
  say), the call is an `isError` result saying so rather than a result the client would
  refuse. The JSON text block is rewritten from the cut data, so text and data agree.
  `structured="drop"` removes the output schema from the tool instead: results are text only.
- **text** is cut to `max_bytes` (UTF-8, never inside a character) with a visible marker
  `… [truncated: 10485760 → 65536 bytes]`; at most `max_items` content blocks are kept and
  blocks past the byte budget (images, embedded files) are dropped.
- the result's `_meta` says what happened: `{"toolweave/truncated": {"bytes": original size,
  "limit": max_bytes, "items": items dropped}}`.

Results within the limits pass through untouched (one size check per text block). Error results
are cut like any other text.

Example:
    >>> import anyio
    >>> from toolweave import Tool
    >>> def numbers(n: int) -> list[int]:
    ...     return list(range(n))
    >>> tool = Tool.from_function(numbers).with_transforms(LimitResult(max_items=3))
    >>> result = anyio.run(tool.run, {"n": 10}, None)
    >>> result.text, result.structured_content, result.meta
    ('[0,1,2]', {'result': [0, 1, 2]}, {'toolweave/truncated': {'bytes': 21, 'limit': None, 'items': 7}})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolweave.core.content import ContentBlock, TextContent
from toolweave.core.context import Context
from toolweave.core.output import schema_problem
from toolweave.core.result import WRAP_KEY, ToolResult, dump_json
from toolweave.core.tool import Tool

META_KEY = "toolweave/truncated"


def _cut_utf8(text: str, limit: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding is at most `limit` bytes."""
    return text.encode()[: max(limit, 0)].decode("utf-8", errors="ignore")


def _cap(data: Any, items: int | None, chars: int | None) -> tuple[Any, int]:
    """`data` with every array cut to `items` and every string to `chars`; and how many items went."""
    if isinstance(data, list):
        kept = data if items is None else data[:items]
        dropped = len(data) - len(kept)
        out = []
        for item in kept:
            capped, more = _cap(item, items, chars)
            out.append(capped)
            dropped += more
        return out, dropped
    if isinstance(data, dict):
        result: dict[str, Any] = {}
        dropped = 0
        for key, value in data.items():
            result[key], more = _cap(value, items, chars)
            dropped += more
        return result, dropped
    if isinstance(data, str) and chars is not None and len(data) > chars:
        return data[:chars], 0
    return data, 0


def _largest_fitting(fits: Any, upper: int) -> int | None:
    """The largest `n` in `[0, upper]` with `fits(n)` (monotonic), or None when even 0 does not fit."""
    if not fits(0):
        return None
    low, high = 0, upper
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _longest(data: Any) -> tuple[int, int]:
    """The longest array and the longest string in `data`."""
    if isinstance(data, list):
        found = [_longest(item) for item in data]
        return max([len(data), *(f[0] for f in found)]), max([0, *(f[1] for f in found)])
    if isinstance(data, dict):
        found = [_longest(value) for value in data.values()]
        return max([0, *(f[0] for f in found)]), max([0, *(f[1] for f in found)])
    return 0, len(data) if isinstance(data, str) else 0


@dataclass(frozen=True)
class LimitResult:
    """Cut results down to `max_bytes` of JSON/text and `max_items` per array (see the module docs).

    Attributes:
        max_bytes: The most bytes of text (and of structured content as JSON) a result carries.
        max_items: The most items an array of the structured content, and the most content
            blocks, a result carries.
        structured: `"keep"` (default) cuts structured content within the output schema;
            `"drop"` removes the output schema, leaving text only.

    Example:
        >>> import anyio
        >>> from toolweave import Tool
        >>> report = Tool.from_function(lambda: "x" * 500, name="report")
        >>> short = report.with_transforms(LimitResult(max_bytes=100))
        >>> text = anyio.run(short.run, {}, None).text
        >>> len(text.encode()) <= 100, text.endswith("… [truncated: 500 → 100 bytes]")
        (True, True)
    """

    max_bytes: int | None = None
    max_items: int | None = None
    structured: Literal["keep", "drop"] = "keep"

    def __post_init__(self) -> None:
        if self.max_bytes is None and self.max_items is None:
            raise ValueError("LimitResult needs max_bytes, max_items or both")
        for name in ("max_bytes", "max_items"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"LimitResult {name} must be a positive integer, not {value!r}")
        if self.structured not in ("keep", "drop"):
            raise ValueError(f"LimitResult structured must be 'keep' or 'drop', not {self.structured!r}")

    def describe(self) -> str:
        """How `explain` shows this transform."""
        bytes_, items = self.max_bytes, self.max_items
        limits = [f"{bytes_} bytes" if bytes_ else "", f"{items} items" if items else ""]
        return "limit results to " + " and ".join(filter(None, limits))

    def apply(self, tool: Tool) -> Tool:
        """`tool` whose results are cut to the limits."""
        schema = None if self.structured == "drop" else tool.output_schema
        inner = tool.run
        limiter = _Limiter(self, tool.name, schema)

        async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            return limiter(await inner(arguments, ctx))

        return tool.derive(self, run=run, output_schema=schema, output_checked=tool.output_checked or schema is None)


class _Limiter:
    """Cuts one tool's results (built once per tool)."""

    def __init__(self, limits: LimitResult, tool: str, schema: Mapping[str, Any] | None) -> None:
        self.max_bytes = limits.max_bytes
        self.max_items = limits.max_items
        self.tool = tool
        self.schema = schema
        self.wrap = bool(schema and schema.get(WRAP_KEY))
        self._validator: Any = None

    def __call__(self, result: ToolResult) -> ToolResult:
        data = result.structured_content if self.schema is not None else None
        if data is not None:
            return self._structured(result, data)
        return self._content(result)

    def _content(
        self, result: ToolResult, cut_data: Any = None, dropped: int = 0, size: int | None = None
    ) -> ToolResult:
        """`result` with at most `max_items` blocks and `max_bytes` of content (`cut_data`: its
        structured content, already cut)."""
        blocks = result.content
        if self.max_items is not None and len(blocks) > self.max_items:
            dropped += len(blocks) - self.max_items
            blocks = blocks[: self.max_items]
        total = _total(result.content)
        kept, used, budget = [], 0, self.max_bytes
        for block in blocks:
            weight = _weight(block)
            if budget is None or used + weight <= budget:
                kept.append(block)
                used += weight
                continue
            marker = f"… [truncated: {total} → {budget} bytes]"
            room = budget - used - len(marker.encode())
            text = _cut_utf8(block.text, room) if isinstance(block, TextContent) and room > 0 else ""
            kept.append(TextContent(text + marker))
            break
        if len(kept) == len(result.content) and kept[-1:] == result.content[-1:] and cut_data is None:
            return result
        report = {"bytes": total if size is None else size, "limit": self.max_bytes, "items": dropped}
        structured = cut_data if cut_data is not None else result.structured_content if self.schema else None
        return ToolResult(kept, structured, result.is_error, {**(result.meta or {}), META_KEY: report})

    def _structured(self, result: ToolResult, data: Any) -> ToolResult:
        value = data["result"] if self.wrap else data  # what the text block shows
        original = dump_json(value)
        size = len(original.encode())
        capped, dropped = _cap(value, self.max_items, None) if self.max_items is not None else (value, 0)
        text = dump_json(capped) if dropped else original
        if self.max_bytes is not None and len(text.encode()) > self.max_bytes:
            capped, dropped, text = self._fit(capped, dropped)
            if capped is None:
                return ToolResult.error(f"the result of tool '{self.tool}' cannot be cut to {self.max_bytes} bytes")
        if text is original:
            return self._content(result)
        cut = {"result": capped} if self.wrap else capped
        problem = schema_problem(self._schema_validator(), cut)
        if problem is not None:
            return ToolResult.error(
                f"the result of tool '{self.tool}' is over its limits and cannot be cut within its "
                f"output schema ({problem})"
            )
        blocks: list[ContentBlock] = [
            TextContent(text) if isinstance(block, TextContent) and block.text == original else block
            for block in result.content
        ]
        return self._content(ToolResult(blocks, cut, result.is_error, result.meta), cut, dropped, size)

    def _fit(self, capped: Any, dropped: int) -> tuple[Any, int, str]:
        limit = self.max_bytes or 0
        longest_array, longest_string = _longest(capped)

        def fits_items(n: int) -> bool:
            return len(dump_json(_cap(capped, n, None)[0]).encode()) <= limit

        # the size grows about linearly with the items kept: search below twice the estimate
        estimate = longest_array * limit // max(len(dump_json(capped).encode()), 1) + 1
        items = _largest_fitting(fits_items, min(longest_array, 2 * estimate))
        if items is not None:
            cut, more = _cap(capped, items, None)
            return cut, dropped + more, dump_json(cut)
        shortest, more = _cap(capped, 0, None)

        def fits_chars(n: int) -> bool:
            return len(dump_json(_cap(shortest, None, n)[0]).encode()) <= limit

        chars = _largest_fitting(fits_chars, longest_string)
        if chars is None:
            return None, dropped, ""
        cut = _cap(shortest, None, chars)[0]
        return cut, dropped + more, dump_json(cut)

    def _schema_validator(self) -> Any:
        if self._validator is None:
            from jsonschema import Draft202012Validator

            self._validator = Draft202012Validator(self.schema or {})
        return self._validator


def _weight(block: ContentBlock) -> int:
    if isinstance(block, TextContent):
        return len(block.text.encode())
    data = getattr(block, "data", None) or getattr(getattr(block, "resource", None), "blob", None) or ""
    return len(data) or len(getattr(getattr(block, "resource", None), "text", "") or "")


def _total(blocks: list[ContentBlock]) -> int:
    return sum(_weight(block) for block in blocks)
