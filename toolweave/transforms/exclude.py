"""`ExcludeArgs`: drop arguments that have defaults from the schema; the default is used.

Example:
    >>> from toolweave import Tool
    >>> def search(query: str, debug: bool = False, trace: bool = False) -> str:
    ...     return query
    >>> tool = Tool.from_function(search).with_transforms(ExcludeArgs("debug", "trace"))
    >>> list(tool.input_schema["properties"])
    ['query']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from toolweave.core.tool import Tool
from toolweave.transforms.plan import Fill, remap, require_args
from toolweave.transforms.signature import Signature


@dataclass(frozen=True, init=False)
class ExcludeArgs:
    """Remove arguments from the exposed schema; each must have a default, which every call uses.

    The names are given one per argument, `ExcludeArgs("debug", "trace")`, or as one list,
    `ExcludeArgs(["debug", "trace"])` (as `exclude_args=` takes them).

    Example:
        >>> ExcludeArgs("debug").describe()
        "exclude ['debug'] (their defaults are used)"
        >>> ExcludeArgs(["debug", "trace"]) == ExcludeArgs("debug", "trace")
        True
    """

    names: tuple[str, ...]

    def __init__(self, *names: str | Iterable[str]) -> None:
        object.__setattr__(self, "names", _names_given(names))

    def describe(self) -> str:
        """How `explain` shows this transform."""
        return f"exclude {list(self.names)} (their defaults are used)"

    def apply(self, tool: Tool) -> Tool:
        """`tool` without the named arguments; `TransformError` if one has no default."""
        sig = Signature.of(tool)
        require_args(tool, sig, self.names, "ExcludeArgs")
        visible = [(arg.name, arg) for arg in sig.args if arg.name not in self.names]
        return remap(tool, self, sig, visible, {name: Fill("default") for name in self.names})


def _names_given(given: tuple[str | Iterable[str], ...]) -> tuple[str, ...]:
    """The argument names `ExcludeArgs` was given: each a string, or one list of strings."""
    if len(given) == 1 and isinstance(given[0], Iterable) and not isinstance(given[0], str):
        given = tuple(given[0])
    if not given:
        raise ValueError("ExcludeArgs needs at least one argument name")
    for name in given:
        if not isinstance(name, str):
            raise TypeError(
                f"ExcludeArgs takes argument names, as ExcludeArgs('a', 'b') or ExcludeArgs(['a', 'b']), not {name!r}"
            )
    return given  # type: ignore[return-value]  # (each was checked to be a str)
