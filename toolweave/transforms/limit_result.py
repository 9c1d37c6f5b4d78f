"""`LimitResult`: bound what one call may send back, visibly and without breaking the schema.

A result over the limits is cut down, never refused:

- **structured content** keeps to the output schema: every array is cut to `max_items`, then
  arrays (then strings) are shortened evenly until the JSON fits in `max_bytes` with room for the
  marker; the cut data is checked against the output schema once — if it no longer fits the
  schema (a `minItems`, say), the call is an `isError` result saying so rather than a result the
  client would refuse. Markers never enter the structured content. A text block that shows the
  structured content (its JSON in any spacing or escapes, as an API answered it, or the string
  itself) is rewritten from the cut data and ends with the marker `… [truncated: 10485760 → 65536
  bytes, 12 items dropped]`, so text and data agree and the model sees the cut; with no such
  block, the marker ends the last text block (or is one). A JSON text over `max_bytes` whose data
  is within it is sent compact rather than cut. `structured="drop"` removes the output schema and
  the structured content instead: results are text only.
- **a JSON text** (an array or object, the only content block of a result without an output
  schema: an API's answer, an unannotated list) is cut the same way as data and stays JSON: its
  arrays to `max_items`, then to `max_bytes`, sent compact with the marker after it.
- **other text** is cut to `max_bytes` (UTF-8, never inside a character), marker included:
  `… [truncated: 10485760 → 65536 bytes]`; at most `max_items` content blocks are kept, and a
  block of another kind (an image, an embedded file) that does not fit the bytes left is dropped
  while the smaller blocks after it are still kept if they fit.
- a marker that would take more than half of `max_bytes` is the short `… [truncated]`; a
  `max_bytes` below `MIN_BYTES` (64) is refused, so a result never exceeds `max_bytes`.
- the result's `_meta` says what happened: `{"toolweave/truncated": {"bytes": the result's size
  before the cut (its text as sent, or its structured content as JSON, the larger), "limit":
  max_bytes, "items": array items and content blocks dropped}}`.

Results within the limits pass through untouched (one size check per text block). Error results
are cut like any other text.

Example:
    >>> import anyio
    >>> from toolweave import Tool
    >>> def numbers(n: int) -> list[int]:
    ...     return list(range(n))
    >>> tool = Tool.from_function(numbers).with_transforms(LimitResult(max_items=3))
    >>> result = anyio.run(tool.run, {"n": 10}, None)
    >>> result.text, result.structured_content
    ('[0,1,2]… [truncated: 7 items dropped]', {'result': [0, 1, 2]})
    >>> result.meta
    {'toolweave/truncated': {'bytes': 21, 'limit': None, 'items': 7}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_core import from_json

from toolweave.core.content import ContentBlock, TextContent
from toolweave.core.context import Context
from toolweave.core.output import schema_problem
from toolweave.core.result import WRAP_KEY, ToolResult, dump_json
from toolweave.core.schema_check import json_schema_validator
from toolweave.core.tool import Tool

META_KEY = "toolweave/truncated"
MIN_BYTES = 64
"""The smallest `max_bytes`: room for a marker and some of the result (a smaller limit is refused)."""
SHORT_MARKER = "… [truncated]"
"""The marker when the full one would take more than half of `max_bytes`."""


def marker(size: int, limit: int | None, items: int = 0) -> str:
    """The visible note at the end of a cut text: the result's size before the cut, the limit and
    the array items dropped; `SHORT_MARKER` when that would take more than half of `limit`.

    Example:
        >>> marker(10485760, 65536, 3), marker(21, None, 7), marker(10485760, 64)
        ('… [truncated: 10485760 → 65536 bytes, 3 items dropped]', '… [truncated: 7 items dropped]', '… [truncated]')
    """
    parts = [] if limit is None else [f"{size} → {limit} bytes"]
    if items:
        parts.append(f"{items} item{'' if items == 1 else 's'} dropped")
    note = f"… [truncated: {', '.join(parts)}]"
    return SHORT_MARKER if limit is not None and 2 * len(note.encode()) > limit else note


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


def _count(data: Any) -> int:
    """How many array items `data` holds, at any depth."""
    if isinstance(data, list):
        return len(data) + sum(_count(item) for item in data)
    if isinstance(data, dict):
        return sum(_count(value) for value in data.values())
    return 0


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
        max_bytes: The most bytes of text (and of structured content as JSON) a result carries,
            the truncation marker included; at least `MIN_BYTES` (64).
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
        if self.max_bytes is not None and self.max_bytes < MIN_BYTES:
            raise ValueError(
                f"LimitResult max_bytes must be at least {MIN_BYTES} (room for the truncation marker "
                f"and some of the result), not {self.max_bytes}"
            )
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
        self.drop = limits.structured == "drop"
        self.tool = tool
        self.schema = schema
        self.wrap = bool(schema and schema.get(WRAP_KEY))
        self._validator: Any = None

    def __call__(self, result: ToolResult) -> ToolResult:
        data = result.structured_content
        if data is not None and self.drop:  # text only, whether or not the result is cut
            result = ToolResult(result.content, None, result.is_error, result.meta)
        if self.schema is None:  # a JSON text (an API's answer, a list) is cut as data, still JSON
            shown = self._sole_json(result.content)
            return self._content(result) if shown is None else self._structured(result, shown)
        if data is None:
            return self._content(result)
        return self._structured(result, data)

    def _sole_json(self, blocks: list[ContentBlock]) -> Any:
        """The data of a result's only content block, a JSON array or object over the limits
        (`None` for anything else)."""
        if len(blocks) != 1 or not isinstance(text := getattr(blocks[0], "text", None), str):
            return None
        if self.max_items is None and self.max_bytes is not None and len(text.encode()) <= self.max_bytes:
            return None  # within the only limit: nothing to cut
        if not text.lstrip().startswith(("[", "{")):
            return None
        try:
            data = from_json(text)
        except ValueError:
            return None
        return data if isinstance(data, list | dict) else None

    def _content(self, result: ToolResult, size: int | None = None, items: int = 0, cut: bool = False) -> ToolResult:
        """`result` with at most `max_items` blocks and `max_bytes` of content. `size`: the result's
        size before any cut; `items`: the items already dropped; `cut`: its structured content was cut."""
        blocks = result.content
        if self.max_items is not None and len(blocks) > self.max_items:
            items += len(blocks) - self.max_items
            blocks = blocks[: self.max_items]
        size = _total(result.content) if size is None else size
        if self.max_bytes is not None and _total(blocks) > self.max_bytes:
            blocks, dropped = _within(blocks, self.max_bytes, marker(size, self.max_bytes))
            items += dropped
        elif not items and not cut:
            return result
        report = {"bytes": size, "limit": self.max_bytes, "items": items}
        structured = result.structured_content if self.schema is not None else None
        return ToolResult(blocks, structured, result.is_error, {**(result.meta or {}), META_KEY: report})

    def _structured(self, result: ToolResult, data: Any) -> ToolResult:
        value = data["result"] if self.wrap else data  # what the text block shows
        compact = dump_json(value)
        size = max(len(compact.encode()), _total(result.content))
        capped, dropped = _cap(value, self.max_items, None) if self.max_items is not None else (value, 0)
        text = dump_json(capped) if dropped else compact
        limit, reserve = self.max_bytes, 0
        if limit is not None and (dropped or len(text.encode()) > limit):
            # the cut text ends with its marker: the data gets what the longest marker could leave
            reserve = len(marker(size, limit, dropped + _count(capped)).encode())
            if len(text.encode()) > limit - reserve:
                capped, dropped, text = self._fit(capped, dropped, limit - reserve)
                if capped is None:
                    message = f"the result of tool '{self.tool}' cannot be cut to {limit} bytes"
                    return self._content(ToolResult.error(message))
        if text is compact:  # the data is within the limits; a JSON text of it over them is sent compact
            if limit is not None and _total(result.content) > limit:
                blocks = _reshown(result.content, data, value, compact, value, compact)
                result = ToolResult(blocks, result.structured_content, result.is_error, result.meta)
            return self._content(result, size)
        cut = {"result": capped} if self.wrap else capped
        problem = None if self.schema is None else schema_problem(self._schema_validator(), cut)
        if problem is not None:
            return self._content(
                ToolResult.error(
                    f"the result of tool '{self.tool}' is over its limits and cannot be cut within its "
                    f"output schema ({problem})"
                )
            )
        note = marker(size, limit, dropped)
        if limit is not None and len(note.encode()) > reserve:
            note = SHORT_MARKER
        blocks = _reshown(result.content, data, value, compact, capped, text, note)
        return self._content(ToolResult(blocks, cut, result.is_error, result.meta), size, dropped, cut=True)

    def _fit(self, capped: Any, dropped: int, limit: int) -> tuple[Any, int, str]:
        """`capped` cut until its JSON is at most `limit` bytes: arrays first, then strings (None: it cannot be)."""
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
            self._validator = json_schema_validator(self.schema or {})
        return self._validator


def _shows(text: str, data: Any, value: Any, compact: str) -> bool:
    """Whether `text` shows the structured content `data` (`value`: what sits under `result`, or
    `data` itself; `compact`: its JSON): as JSON with any spacing or escapes, or as the string."""
    if text == compact or (isinstance(value, str) and text == value):
        return True
    try:
        shown = from_json(text)
    except ValueError:
        return False
    return bool(shown in (value, data))


def _reshown(
    blocks: list[ContentBlock], data: Any, value: Any, compact: str, cut: Any, cut_json: str, note: str = ""
) -> list[ContentBlock]:
    """`blocks` with each text block that shows the structured content (`_shows`) showing `cut`
    instead, followed by `note`; with no such block, `note` ends the last text block, or is one."""
    out: list[ContentBlock] = []
    noted = False
    for block in blocks:
        if isinstance(block, TextContent) and _shows(block.text, data, value, compact):
            as_string = isinstance(value, str) and block.text == value and isinstance(cut, str)
            block, noted = TextContent((cut if as_string else cut_json) + note), True
        out.append(block)
    if note and not noted:
        last = max((i for i, block in enumerate(out) if isinstance(block, TextContent)), default=None)
        if last is None:
            out.insert(0, TextContent(note.removeprefix("… ")))
        else:
            out[last] = TextContent(out[last].text + note)  # type: ignore[union-attr]
    return out


def _within(blocks: list[ContentBlock], budget: int, note: str) -> tuple[list[ContentBlock], int]:
    """`blocks` (over `budget` bytes) cut to `budget`, `note` included, and how many were dropped:
    each block that fits with room for `note` is kept; one of another kind that does not (an image)
    is dropped and the next ones still tried; a text block that does not is cut to the room left,
    ending with `note`, and the blocks after it dropped."""
    room = budget - len(note.encode())
    kept: list[ContentBlock] = []
    for index, block in enumerate(blocks):
        weight = _weight(block)
        if weight <= room:
            kept.append(block)
            room -= weight
        elif isinstance(block, TextContent):
            kept.append(TextContent(_cut_utf8(block.text, room) + note))
            return kept, len(blocks) - index - 1
    dropped = len(blocks) - len(kept)
    return [*kept, TextContent(note)], dropped


def _weight(block: ContentBlock) -> int:
    if isinstance(block, TextContent):
        return len(block.text.encode())
    data = getattr(block, "data", None) or getattr(getattr(block, "resource", None), "blob", None) or ""
    return len(data) or len(getattr(getattr(block, "resource", None), "text", "") or "")


def _total(blocks: list[ContentBlock]) -> int:
    return sum(_weight(block) for block in blocks)
