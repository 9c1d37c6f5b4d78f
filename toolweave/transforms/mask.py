"""`MaskErrors`: a per-tool error masking policy, overriding the server's.

With masking, an internal error reaches the client as `Error calling tool '<name>' (incident
<id>)` (or your `message`, with `{name}` and `{incident}` filled in) and nothing else: no
exception message, type name, file path or traceback. Exceptions listed in `passthrough` (by
default `ToolError`, whose message is written for the client) still reach it.

Example:
    >>> from toolweave import Tool
    >>> def fragile(x: int) -> int:
    ...     return 1 // x
    >>> tool = Tool.from_function(fragile).with_transforms(MaskErrors("fragile failed ({incident})"))
    >>> tool.error_policy.mask, tool.error_policy.message
    (True, 'fragile failed ({incident})')
"""

from __future__ import annotations

from dataclasses import dataclass

from toolweave.core.errors import ToolError, TransformError
from toolweave.core.masking import ErrorPolicy
from toolweave.core.tool import Tool


@dataclass(frozen=True)
class MaskErrors:
    """Mask internal errors of this tool, whatever the server's `mask_error_details` says.

    Example:
        >>> MaskErrors().describe()
        'mask internal errors (ToolError passes through)'
    """

    message: str | None = None
    passthrough: tuple[type[BaseException], ...] = (ToolError,)

    def __post_init__(self) -> None:
        if self.message is not None:
            try:
                self.message.format(name="tool", incident="0")
            except (KeyError, IndexError, ValueError) as error:
                raise TransformError(
                    f"MaskErrors: message {self.message!r} may only use the fields {{name}} and {{incident}} ({error})"
                ) from None
        if isinstance(self.passthrough, type):  # one exception class, as `except` takes it
            object.__setattr__(self, "passthrough", (self.passthrough,))
        for kind in self.passthrough:
            if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                raise TransformError(f"MaskErrors: passthrough must hold exception types, not {kind!r}")

    def describe(self) -> str:
        """How `explain` shows this transform."""
        names = ", ".join(kind.__name__ for kind in self.passthrough) or "nothing"
        return f"mask internal errors ({names} passes through)"

    def apply(self, tool: Tool) -> Tool:
        """`tool` with this masking policy (`tool.error_policy`)."""
        policy = ErrorPolicy(mask=True, message=self.message, passthrough=tuple(self.passthrough))
        return tool.derive(self, error_policy=policy)
