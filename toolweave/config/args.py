"""A tool's `args` section as one step, whose refusals speak the config's keys.

The section becomes `ExcludeArgs`, `InjectArgs` and `TransformArgs` (see `build_policies.arg_transforms`).
When one refuses a tool, its `TransformError` speaks Python (`ExcludeArgs names an argument...`,
`give it a default (Arg(default=...))`); `ArgChanges` turns it into a `ConfigError` at the key
that asked for it, in the words of the file.

Example:
    >>> from toolweave import Tool
    >>> from toolweave.config.changes import ArgSpec
    >>> from toolweave.transforms import ExcludeArgs
    >>> def echo(text: str) -> str:
    ...     return text
    >>> hide = ArgChanges((ExcludeArgs("txet"),), {"txet": ArgSpec(hide=True)}, "tools.echo.args", "echo")
    >>> Tool.from_function(echo).with_transforms(hide)
    Traceback (most recent call last):
    ...
    toolweave.core.errors.ConfigError: tools.echo.args.txet.hide: the tool has no argument 'txet' (did you mean 'text'?)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolweave.config.changes import ArgSpec
from toolweave.config.paths import key_path
from toolweave.core.errors import ConfigError, TransformError
from toolweave.core.names import advice
from toolweave.core.tool import Tool
from toolweave.transforms.signature import Signature

REQUIRED_HIDDEN = "a required argument cannot be hidden without a value: add `default:` or `inject:`"

_REFUSALS = {  # a transform's refusal of one argument → the config keys that may be at fault, what to say
    "required_hidden": (("hide",), REQUIRED_HIDDEN),
    "default_mismatch": (("default",), "does not fit the argument's type"),
    "value_mismatch": (("inject", "default"), "does not fit the argument's type"),
    "rename": (("name",), None),  # None: the transform's words are the config's too
}


def _key(name: str, spec: ArgSpec, where: str) -> str:
    """The key path of an argument's entry: its one key when it has one (`args.q.hide`), else itself."""
    keys = sorted(spec.model_fields_set)
    return key_path((name, keys[0]) if len(keys) == 1 else (name,), start=where)


def unknown_argument(name: str, tool: Tool, *, subject: str = "the tool") -> str | None:
    """What is wrong with changing argument `name` of `tool`: None if the tool exposes it.

    Example:
        >>> from toolweave import Tool
        >>> def search(query: str, limit: int = 5) -> str:
        ...     return query
        >>> unknown_argument("qeury", Tool.from_function(search))
        "the tool has no argument 'qeury' (did you mean 'query'?)"
        >>> unknown_argument("page", Tool.from_function(search))
        "the tool has no argument 'page' (it has: query, limit)"
    """
    exposed = [arg.name for arg in Signature.of(tool).args]
    if name in exposed:
        return None
    if name.casefold() in {hidden.casefold() for hidden in tool.hidden}:
        return f"{subject} has no argument {name!r} to change: it is already hidden"
    said = advice(name, exposed, f"it has: {', '.join(exposed) or 'no arguments'}")
    return f"{subject} has no argument {name!r} ({said})"


@dataclass(frozen=True, eq=False, slots=True)
class ArgChanges:
    """The argument transforms of one `args` section, applied in order as one step.

    `where` is the section's key path; `tool` the name of the tool it belongs to (a `tools.<name>`
    entry), or None for a `transforms` rule, whose messages then name each tool it refuses.
    """

    steps: tuple[Any, ...]
    args: Mapping[str, ArgSpec]
    where: str
    tool: str | None = None

    def apply(self, tool: Tool) -> Tool:
        """The tool with every step applied; a refusal is a `ConfigError` at the key at fault."""
        try:
            return tool.with_transforms(*self.steps)
        except (TypeError, ValueError) as error:
            raise self.problem(tool, error) from None

    def problem(self, tool: Tool, error: Exception) -> ConfigError:
        """The `ConfigError` for a transform's `error` on `tool` (as the section received it), with
        every argument the section names that the tool does not have: all of them at once."""
        subject = "the tool" if self.tool is not None else f"tool {tool.name!r}"
        problems: list[tuple[str, str]] = []
        for name, spec in self.args.items():
            unknown = unknown_argument(name, tool, subject=subject)
            if unknown is not None:
                problems.append((_key(name, spec, self.where), unknown))
        refused = self._refused(error, subject) if isinstance(error, TransformError) else None
        if refused is not None and unknown_argument(refused[0], tool) is None:  # (else said above)
            problems.append(refused[1:])
        if not problems:
            return ConfigError(str(error), path=self.where)
        if len(problems) == 1:
            return ConfigError(problems[0][1], path=problems[0][0])
        listed = "\n".join(f"  - {path}: {said}" for path, said in problems)
        return ConfigError(f"{len(problems)} problems:\n{listed}")

    def _refused(self, error: TransformError, subject: str) -> tuple[str, str, str] | None:
        """The argument, key path and words of the transform's refusal, when it refused an argument
        this section names."""
        name = error.argument
        if name is None or name not in self.args:
            return None
        spec, detail = self.args[name], str(error.detail)
        keys, said = _REFUSALS.get(error.problem or "", ((), None))
        given = [key for key in keys if key in spec.model_fields_set]
        path = key_path((name, given[0]), start=self.where) if given else _key(name, spec, self.where)
        words = (said or detail) if given else detail
        return name, path, words if self.tool is not None else f"{subject}: {words}"

    def describe(self) -> str:
        """How `explain` shows this step."""
        return ", then ".join(getattr(step, "describe", step.__repr__)() for step in self.steps)
