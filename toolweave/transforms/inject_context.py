"""`InjectContext`: pass the request `Context` into a parameter of a function you do not own.

Example:
    >>> from toolweave import Tool
    >>> def lookup(key: str, context=None) -> str:   # a library function, no Context annotation
    ...     return key
    >>> tool = Tool.from_function(lookup).with_transforms(InjectContext("context"))
    >>> list(tool.input_schema["properties"])
    ['key']
"""

from __future__ import annotations

from dataclasses import dataclass

from toolweave.core.tool import Tool
from toolweave.transforms.plan import Fill, remap, require_args
from toolweave.transforms.signature import Signature


@dataclass(frozen=True, slots=True)
class InjectContext:
    """Hide the argument `param` and pass the request `Context` in it on every call.

    Example:
        >>> InjectContext("ctx").describe()
        "pass the request Context as 'ctx'"
    """

    param: str

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return f"pass the request Context as {self.param!r}"

    def apply(self, tool: Tool) -> Tool:
        """`tool` with `param` hidden and filled with the request `Context`."""
        sig = Signature.of(tool)
        require_args(tool, sig, [self.param], "InjectContext")
        visible = [(arg.name, arg) for arg in sig.args if arg.name != self.param]
        return remap(tool, self, sig, visible, {self.param: Fill("context")})
