"""`RunAsTask`: the transform that sets how a tool relates to MCP tasks.

Example:
    >>> from toolweave.testing import fake_tool
    >>> RunAsTask("optional").apply(fake_tool("export")).task_support
    'optional'
"""

from __future__ import annotations

from dataclasses import dataclass

from toolweave.core.tool import TASK_SUPPORT, TaskSupport, Tool


@dataclass(frozen=True, slots=True)
class RunAsTask:
    """Let a tool's calls run as MCP tasks: `"optional"` (when the client accepts tasks),
    `"required"` (only as tasks) or `"none"` (never).

    Example:
        >>> import anyio
        >>> from toolweave import Server
        >>> server = Server("ci")
        >>> @server.tool(tags={"slow"})
        ... def deploy() -> str:
        ...     return "deployed"
        >>> @server.tool
        ... def lint() -> str:
        ...     return "clean"
        >>> server.add_transform(RunAsTask("required"), tags={"slow"})
        >>> [(tool.name, tool.task_support) for tool in anyio.run(server.list_tools)]
        [('deploy', 'required'), ('lint', 'none')]
    """

    support: TaskSupport = "optional"

    def __post_init__(self) -> None:
        if self.support not in TASK_SUPPORT:
            raise ValueError(f"RunAsTask: support must be one of {TASK_SUPPORT}, not {self.support!r}")

    def apply(self, tool: Tool) -> Tool:
        """The tool, with `task_support` set."""
        return tool if tool.task_support == self.support else tool.derive(self, task_support=self.support)

    def describe(self) -> str:
        """How `explain` shows this step."""
        return f"runs as a task: {self.support}"
