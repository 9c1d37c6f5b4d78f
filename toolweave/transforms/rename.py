"""`Rename`: a new tool name, title or description; the original stays reachable for `explain`.

Example:
    >>> from toolweave import Tool
    >>> def q(text: str) -> str:
    ...     return text
    >>> tool = Tool.from_function(q).with_transforms(Rename("search_docs", description="Search the docs."))
    >>> tool.name, tool.description, tool.root.name
    ('search_docs', 'Search the docs.', 'q')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolweave.core.errors import TransformError
from toolweave.core.names import NAME_PATTERN, NAME_RULE
from toolweave.core.tool import Tool
from toolweave.transforms.signature import NOT_SET


@dataclass(frozen=True)
class Rename:
    """Give a tool a new name, title and/or description (options left out are kept).

    Example:
        >>> Rename("search_docs").describe()
        "rename to 'search_docs'"
    """

    name: str | None = None
    title: Any = NOT_SET
    description: Any = NOT_SET

    def __post_init__(self) -> None:
        if self.name is not None and not (isinstance(self.name, str) and NAME_PATTERN.fullmatch(self.name)):
            raise TransformError(f"Rename: tool name {self.name!r} is not valid: {NAME_RULE}")

    def describe(self) -> str:
        """How `explain` shows this transform."""
        parts = [f"rename to {self.name!r}"] if self.name else []
        if self.title is not NOT_SET:
            parts.append(f"title {self.title!r}")
        if self.description is not NOT_SET:
            parts.append("new description")
        return ", ".join(parts) or "rename (no change)"

    def apply(self, tool: Tool) -> Tool:
        """`tool` under its new name, title and description."""
        changes: dict[str, Any] = {}
        if self.name is not None:
            changes["name"] = self.name
        if self.title is not NOT_SET:
            changes["title"] = self.title
        if self.description is not NOT_SET:
            changes["description"] = self.description
        return tool.derive(self, **changes)
