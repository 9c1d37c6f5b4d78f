"""What a function tool returns: the type its result is checked against (`returned_type`, a
generator's items as a list) and the output schema of that type (`returned_schema`), none where
the value may be content blocks or the type has no JSON Schema.

Example:
    >>> def search(q: str) -> Iterator[str]:
    ...     yield q
    >>> infer_output_schema(search)["properties"]["result"]
    {'items': {'type': 'string'}, 'type': 'array'}
"""

from __future__ import annotations

import logging
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import Annotated, Any, get_args, get_origin

from toolweave.core.content import CONTENT_TYPES, MEDIA_HELPERS
from toolweave.core.memo import Memo
from toolweave.core.reading import target, type_hints
from toolweave.core.result import ToolResult
from toolweave.core.schema import output_schema_for

logger = logging.getLogger("toolweave.server")
_NO_OUTPUT_SCHEMA = (str, bytes, ToolResult, type(None), Any, *CONTENT_TYPES, *MEDIA_HELPERS)
_SENT_AS_CONTENT = (ToolResult, *CONTENT_TYPES, *MEDIA_HELPERS)
_ITERATORS = (Iterator, Iterable, Generator, AsyncIterator, AsyncIterable, AsyncGenerator)
"""Return annotations of generators: the tool returns the list of their items."""


def returned_type(hints: Mapping[str, Any]) -> Any:
    """The type a function's result is checked against and described by: its return annotation,
    except that a generator's (`Iterator[T]`, `AsyncIterator[T]`, `Generator[T, ...]`, ...) is the
    `list[T]` of its items, which is what the tool returns (`core/invoke.py` runs it to its end).

    Example:
        >>> returned_type({"return": Iterator[int]}), returned_type({"return": AsyncGenerator[str, None]})
        (list[int], list[str])
    """
    annotation = hints.get("return", Any)
    if get_origin(annotation) in _ITERATORS:
        return list[get_args(annotation)[0] if get_args(annotation) else Any]  # type: ignore[misc]
    return annotation


def infer_output_schema(fn: Callable[..., Any], hints: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The output schema of what `fn` returns (`None`: results go out as content only)."""
    return returned_schema(returned_type(type_hints(target(fn)) if hints is None else hints))


_RETURNED: Memo[dict[str, Any] | None] = Memo(limit=1024)


def returned_schema(annotation: Any) -> dict[str, Any] | None:
    """The output schema of a return annotation, or `None`; worked out once per annotation (many
    tools return the same type; the schema is shared, never edited in place).

    Example:
        >>> returned_schema(int)["properties"]["result"], returned_schema(str)
        ({'type': 'integer'}, None)
    """
    return _RETURNED.get(annotation, _returned_schema, annotation)


def _returned_schema(annotation: Any) -> dict[str, Any] | None:
    if isinstance(annotation, str):
        return None
    base = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
    if base in _NO_OUTPUT_SCHEMA or (isinstance(base, type) and issubclass(base, _NO_OUTPUT_SCHEMA[:3])):
        return None
    if base in (list, tuple, Sequence) or (
        get_origin(base) in (list, tuple, Sequence) and (not get_args(base) or Any in get_args(base))
    ):
        return None  # an unconstrained list may hold content blocks: no schema it could not honour
    if _may_be_content(annotation):
        return None  # `Image | None`, `str | Image`, `list[str | Image]`: sent as content blocks
    try:
        return output_schema_for(annotation)
    except Exception as error:  # (said once per annotation: the result is memoized)
        logger.warning(
            "the return type %s has no JSON Schema (%s): tools returning it have no output schema",
            getattr(annotation, "__name__", annotation),
            str(error).splitlines()[0],
        )
        return None


def _may_be_content(annotation: Any) -> bool:
    """Whether a value of this type may be (or hold) content blocks or media anywhere inside it."""
    if isinstance(annotation, type) and issubclass(annotation, _SENT_AS_CONTENT):
        return True
    return any(_may_be_content(arg) for arg in get_args(annotation))
