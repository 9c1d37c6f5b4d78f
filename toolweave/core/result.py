"""`ToolResult`, and how a tool's return value becomes one.

| returned value                      | content                         | structured_content          |
|-------------------------------------|---------------------------------|-----------------------------|
| `str`                               | one text block                  | when there is an output schema |
| `dict`, list, model, dataclass, ... | one JSON text block             | when there is an output schema |
| `bytes`                             | one embedded blob resource      | -                           |
| `Image` / `Audio` / `File`          | image / audio / resource block  | -                           |
| a list holding content or media     | one block per item              | -                           |
| `None`                              | no content                      | -                           |
| `ToolResult`                        | passes through unchanged        | as given                    |

A non-object value under an output schema is wrapped as `{"result": value}`. Values are
serialised once: to JSON-able data, then to text.

Example:
    >>> convert = ResultConverter(output_schema=None)
    >>> convert("hi").content
    [TextContent(text='hi', annotations=None, meta=None, type='text')]
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_json, to_jsonable_python

from toolweave.core.content import (
    CONTENT_TYPES,
    MEDIA_HELPERS,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    TextContent,
)
from toolweave.core.errors import InvalidResult
from toolweave.core.memo import Memo

_JSON_SCALARS = frozenset({int, float, bool})
WRAP_KEY = "x-toolweave-wrap-result"
"""Marks an output schema whose value sits under `"result"` (a non-object return type)."""


@dataclass(slots=True)
class ToolResult:
    """What a tool call returns: content blocks, optional structured content, an error flag.

    Example:
        >>> ToolResult([TextContent("done")], structured_content={"ok": True}).is_error
        False
    """

    content: list[ContentBlock] = field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False
    meta: dict[str, Any] | None = None

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """An `isError` result carrying one text block."""
        return cls([TextContent(message)], is_error=True)

    @property
    def text(self) -> str:
        """The text of all text blocks, joined by newlines (handy in tests and the CLI)."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextContent))


def _is_content_like(item: object) -> bool:
    return isinstance(item, CONTENT_TYPES + MEDIA_HELPERS)


def _blob(data: bytes) -> EmbeddedResource:
    encoded = base64.b64encode(data).decode("ascii")
    return EmbeddedResource(
        BlobResourceContents(uri="toolweave://result", blob=encoded, mime_type="application/octet-stream")
    )


def _block(item: object) -> ContentBlock:
    if isinstance(item, CONTENT_TYPES):
        return item  # type: ignore[return-value]
    if isinstance(item, MEDIA_HELPERS):
        return item.to_content()
    if isinstance(item, str):
        return TextContent(item)
    if isinstance(item, bytes):
        return _blob(item)
    return TextContent(dump_json(to_jsonable_python(item)))


def non_finite(data: Any, path: tuple[str, ...] = ()) -> str | None:
    """The path of the first NaN or ±Infinity in JSON-like data, if any.

    Example:
        >>> non_finite({"stats": [1.0, float("nan")]}), non_finite({"n": 1})
        ('stats/1', None)
    """
    if type(data) is float:
        return None if math.isfinite(data) else "/".join(path) or "(root)"
    items: Any
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    else:
        return None
    for key, item in items:
        found = non_finite(item, (*path, str(key)))
        if found is not None:
            return found
    return None


def _finite(value: Any) -> bool:
    """False for the floats JSON cannot carry (NaN, ±Infinity)."""
    return type(value) is not float or math.isfinite(value)


def _finite_json(data: Any) -> str:
    """The JSON text of a return value's data, which must hold no NaN or ±Infinity.

    The annotation refuses them only where it says `float`: a model's or dataclass's own config
    (at any depth) and `Any` let them through, and JSON would carry them as `null`, breaking a
    `number` schema in the client's SDK. Written as JSON's constants they show in the text: a
    search of it is the common case's whole cost; only a text holding those words is walked.
    """
    text: str = to_json(data, inf_nan_mode="constants").decode()
    if ("N" in text or "I" in text) and ("NaN" in text or "Infinity" in text):  # (one letter: a memchr)
        unsent = non_finite(data)
        if unsent is not None:
            raise InvalidResult(f"the return value holds NaN or infinity, which JSON cannot carry ({unsent})")
    return text


def dump_json(data: Any) -> str:
    """Compact JSON text of JSON-able data, as tools return it to the model.

    `NaN` and `±Infinity`, which JSON cannot carry, become `null` (as the wire's structured
    content does).

    Example:
        >>> dump_json({"mean": float("nan"), "n": 0})
        '{"mean":null,"n":0}'
    """
    return to_json(data, inf_nan_mode="null").decode()


_shared: Memo[ResultConverter] = Memo(limit=1024)


def _itself(value: Any) -> Any:
    return value


class ResultConverter:
    """Turns return values into `ToolResult`s for one tool; built once, when the tool is built.

    Args:
        output_schema: The tool's output schema (structured content is produced under one).
        returns: The return annotation the schema was inferred from: values are validated
            against it (the adapter is built on the first call), so structured content always
            matches the schema; a value that does not fit is an `InvalidResult`.
    """

    __slots__ = ("_adapter", "returns", "structured", "wrap")

    def __init__(self, output_schema: Mapping[str, Any] | None, returns: Any = None) -> None:
        self.structured = output_schema is not None
        self.wrap = bool(output_schema and output_schema.get(WRAP_KEY))
        self.returns: Any = returns if self.structured else None
        self._adapter: Any = None

    @classmethod
    def shared(cls, output_schema: Mapping[str, Any] | None, returns: Any = None) -> ResultConverter:
        """A converter for these arguments, the same object for every tool that needs an equal one
        (it holds nothing of a tool's own: thousands of tools returning `str` share one)."""
        converter = cls(output_schema, returns)
        return _shared.get((converter.structured, converter.wrap, converter.returns), _itself, converter)

    def __call__(self, value: object) -> ToolResult:
        kind = type(value)
        if kind is str and (self.returns is None or self.returns is str):
            return ToolResult([TextContent(value)], self._structured(value))  # type: ignore[arg-type]
        if kind is int and (self.returns is None or self.returns is int):
            return ToolResult([TextContent(str(value))], self._structured(value))  # an int's JSON is its str
        if kind in _JSON_SCALARS and (self.returns is None or (self.returns is kind and _finite(value))):
            return ToolResult([TextContent(dump_json(value))], self._structured(value))  # already JSON
        if isinstance(value, ToolResult):
            return value
        if value is None and self.returns is None:
            return ToolResult([], self._structured(None) if self.wrap else None)
        if isinstance(value, bytes):
            return ToolResult([_blob(value)])
        if _is_content_like(value):
            return ToolResult([_block(value)])
        if isinstance(value, list | tuple) and any(_is_content_like(item) for item in value):
            return ToolResult([_block(item) for item in value])
        if self.returns is None:
            data = to_jsonable_python(value)
            text = None if data is None else dump_json(data)
        else:
            data = self._checked(value)
            text = None if data is None else _finite_json(data)
        if text is None:
            return ToolResult([], self._structured(None) if self.wrap else None)
        return ToolResult([TextContent(text)], self._structured(data))

    def _checked(self, value: object) -> Any:
        """`value` validated against the return annotation, as JSON-able data."""
        adapter = self._adapter
        if adapter is None:
            from pydantic import ConfigDict, PydanticUserError, TypeAdapter

            try:  # NaN and Infinity are not JSON numbers: refused where the annotation says `float`,
                # kept as floats elsewhere (`Any`) for `_finite_json` to find, never dumped as `null`
                config = ConfigDict(allow_inf_nan=False, ser_json_inf_nan="constants")
                adapter = TypeAdapter(self.returns, config=config)
            except PydanticUserError:  # models and dataclasses carry their own config
                adapter = TypeAdapter(self.returns)
            self._adapter = adapter
        from pydantic import ValidationError

        try:
            return adapter.dump_python(adapter.validate_python(value), mode="json")
        except ValidationError as error:
            first = error.errors(include_url=False, include_input=False, include_context=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "(root)"
            raise InvalidResult(
                f"the return value does not match the return annotation ({where}: {first['msg']})"
            ) from None

    def _structured(self, data: Any) -> Any:
        if not self.structured:
            return None
        return {"result": data} if self.wrap else data
