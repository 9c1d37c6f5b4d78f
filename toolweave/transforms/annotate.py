"""`Annotate`: set or merge a tool's annotations (hints), tags and meta.

Example:
    >>> from toolweave import Tool
    >>> def forecast(city: str) -> str:
    ...     return "sunny"
    >>> tool = Tool.from_function(forecast).with_transforms(Annotate(read_only=True, tags={"weather"}))
    >>> tool.annotations.to_dict(), sorted(tool.tags)
    ({'readOnlyHint': True}, ['weather'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolweave.core.tool import Tool, ToolAnnotations


@dataclass(frozen=True)
class Annotate:
    """Set annotation hints (others are kept), add tags, and merge `meta` keys.

    Example:
        >>> Annotate(destructive=True, idempotent=False).describe()
        'annotate destructive=True, idempotent=False'
    """

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    tags: Iterable[str] = ()
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        ToolAnnotations(**self._hints())  # the hints are checked now (booleans), not at each tool
        if isinstance(self.tags, str):
            object.__setattr__(self, "tags", (self.tags,))
        object.__setattr__(self, "tags", frozenset(self.tags))

    def _hints(self) -> dict[str, Any]:
        hints = {
            "title": self.title,
            "read_only_hint": self.read_only,
            "destructive_hint": self.destructive,
            "idempotent_hint": self.idempotent,
            "open_world_hint": self.open_world,
        }
        return {key: value for key, value in hints.items() if value is not None}

    def describe(self) -> str:
        """How `explain` shows this transform."""
        labels = {
            "read_only_hint": "read_only",
            "destructive_hint": "destructive",
            "idempotent_hint": "idempotent",
            "open_world_hint": "open_world",
        }
        parts = [f"{labels.get(k, k)}={v!r}" for k, v in self._hints().items()]
        if self.tags:
            parts.append(f"tags={sorted(self.tags)}")
        if self.meta:
            parts.append(f"meta keys={sorted(self.meta)}")
        return "annotate " + (", ".join(parts) or "(no change)")

    def apply(self, tool: Tool) -> Tool:
        """`tool` with merged annotations, tags and meta."""
        hints = self._hints()
        annotations = replace(tool.annotations or ToolAnnotations(), **hints) if hints else tool.annotations
        meta = {**(tool.meta or {}), **self.meta} if self.meta else tool.meta
        return tool.derive(self, annotations=annotations, tags=tool.tags | frozenset(self.tags), meta=meta)
