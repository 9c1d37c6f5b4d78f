"""Two small transforms the config needs: show/hide a tool, and apply several transforms as one.

Example:
    >>> from toolweave.testing import fake_tool
    >>> Visibility(False, "in exclude").apply(fake_tool("t")).enabled
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolweave.core.errors import ConfigError
from toolweave.core.tool import Tool


@dataclass(frozen=True, slots=True)
class Visibility:
    """Show or hide a tool (config `enabled`, `include`, `exclude`)."""

    enabled: bool
    reason: str

    def apply(self, tool: Tool) -> Tool:
        """The tool, enabled or disabled."""
        return tool.replace(enabled=self.enabled)

    def describe(self) -> str:
        """How `explain` shows this step."""
        return f"{'shown' if self.enabled else 'hidden'} ({self.reason})"


@dataclass(frozen=True, slots=True)
class Steps:
    """Several transforms applied as one, in order (so a rename does not hide the tool from the rest).

    Each inner transform still records itself in the tool's lineage, so `explain` lists them. A
    transform that refuses the tool (`TypeError`/`ValueError`) becomes a `ConfigError` at `where`,
    the key of the config entry that asked for it.
    """

    steps: tuple[Any, ...]
    where: str | None = None

    def apply(self, tool: Tool) -> Tool:
        """The tool with every step applied."""
        try:
            return tool.with_transforms(*self.steps)
        except (TypeError, ValueError) as error:
            if self.where is None:
                raise
            raise ConfigError(str(error), path=self.where) from None

    def describe(self) -> str:
        """How `explain` shows this step."""
        return ", then ".join(getattr(step, "describe", step.__repr__)() for step in self.steps)


@dataclass(frozen=True, eq=False, slots=True)
class PerTool:
    """Changes for tools by name (a config's `tools:` section): one dict lookup per tool, not a selector each."""

    changes: Mapping[str, Steps]

    def apply(self, tool: Tool) -> Tool:
        """The tool with the changes written for its name, if any."""
        steps = self.changes.get(tool.name)
        return tool if steps is None else steps.apply(tool)

    def describe(self) -> str:
        """How `explain` shows this step."""
        return f"per-tool changes for {', '.join(sorted(self.changes))}"
