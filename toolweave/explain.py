"""`explain(tool_or_server)`: where each exposed tool comes from and what was done to it.

For every exposed tool: its origin (a function, a hand-written schema, a mount or a remote
server, and the original name), the transforms applied in order, the middleware chain in order
(outermost first; servers only), and the input schema before and after. `explain` returns the
data (`Explanation`, with `to_dict()`) and prints it as text unless `show=False`.

Example:
    >>> from toolweave import Server
    >>> from toolweave.transforms import Rename
    >>> server = Server("demo")
    >>> @server.tool
    ... def q(text: str) -> str:
    ...     return text
    >>> server.add_transform(Rename("search"))
    >>> report = explain(server, show=False)
    >>> entry = report["search"]
    >>> entry.original_name, entry.transforms
    ('q', ("rename to 'search'",))
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TextIO

from toolweave.core.tool import Tool

if TYPE_CHECKING:
    from toolweave.server.server import Server


@dataclass(frozen=True, slots=True)
class ToolExplanation:
    """One exposed tool, explained.

    Attributes:
        name: The exposed name.
        origin: Where it comes from, e.g. `function app.search` or `mount 'gh' tool 'list' ...`.
        kind: The base tool's kind: `function`, `schema`, `remote`, ...
        original_name: The base tool's name before any transform.
        transforms: What was applied, oldest first (as each transform describes itself).
        middleware: The middleware chain of the tool, outermost first (empty for a bare tool).
        schema_before: The base tool's input schema.
        schema_after: The exposed input schema.
    """

    name: str
    origin: str
    kind: str
    original_name: str
    transforms: tuple[str, ...]
    middleware: tuple[str, ...]
    schema_before: Mapping[str, Any]
    schema_after: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The explanation as JSON-able data."""
        data = asdict(self)
        data["transforms"] = list(self.transforms)
        data["middleware"] = list(self.middleware)
        return data


@dataclass(frozen=True, slots=True)
class Explanation:
    """The explanation of every exposed tool, in catalog order; `str()` renders it as text."""

    tools: tuple[ToolExplanation, ...]

    def __getitem__(self, name: str) -> ToolExplanation:
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """`{"tools": [...]}` as JSON-able data."""
        return {"tools": [tool.to_dict() for tool in self.tools]}

    def __str__(self) -> str:
        return "\n\n".join(_render(tool) for tool in self.tools) + "\n"


def describe(transform: Any) -> str:
    """How one transform shows in `explain`: its `describe()`, else its repr."""
    method = getattr(transform, "describe", None)
    return str(method()) if callable(method) else repr(transform)


def _lineage(tool: Tool) -> tuple[Tool, list[str]]:
    steps: list[str] = []
    current = tool
    while current.parent is not None:
        steps.extend(describe(t) for t in reversed(current.transforms))
        current = current.parent
    steps.reverse()
    return current, steps


def explain_tool(tool: Tool, *, origin: str | None = None, middleware: tuple[str, ...] = ()) -> ToolExplanation:
    """The explanation of one tool (`origin` and `middleware` as a server's catalog knows them)."""
    root, steps = _lineage(tool)
    base = root.origin
    kind = base.kind if base else "schema"
    if base is None or base.kind == "schema":
        source = base.source if base else "hand-written schema"
    elif base.kind == "function":
        source = f"function {base.source}.{base.original_name}"
    else:
        source = f"{kind} {base.source}"
    return ToolExplanation(
        name=tool.name,
        origin=origin or source,
        kind=kind,
        original_name=root.name,
        transforms=tuple(steps),
        middleware=middleware,
        schema_before=root.input_schema,
        schema_after=tool.input_schema,
    )


def explain(
    target: Tool | Server, name: str | None = None, *, show: bool = True, file: TextIO | None = None
) -> Explanation:
    """Explain a tool, or every exposed tool of a server (only `name`, if given).

    Args:
        target: A `Tool` or a `Server` (its compiled catalog is explained).
        name: Explain only this exposed tool of the server.
        show: Print the explanation (to `file`, standard output by default).
        file: Where to print.

    Raises:
        KeyError: when the server exposes no tool called `name`.
    """
    if isinstance(target, Tool):
        report = Explanation((explain_tool(target),))
    else:
        entries = target.catalog.entries
        if name is not None and name not in entries:
            raise KeyError(f"server {target.name!r} exposes no tool named {name!r}")
        chosen = [entries[name]] if name is not None else list(entries.values())
        report = Explanation(
            tuple(
                explain_tool(
                    entry.tool,
                    origin=f"{entry.origin} <- {explain_tool(entry.tool).origin}",
                    middleware=tuple(layer.name for layer in entry.chain),
                )
                for entry in chosen
            )
        )
    if show:
        (file or sys.stdout).write(str(report))
    return report


def _type_of(prop: Any) -> str:
    if not isinstance(prop, Mapping):
        return "any"
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        if isinstance(prop.get(key), list):
            return " | ".join(_type_of(option) for option in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"array[{_type_of(prop.get('items'))}]"
    return "|".join(kind) if isinstance(kind, list) else str(kind)


def _arguments(schema: Mapping[str, Any]) -> str:
    props = schema.get("properties") or {}
    if not props:
        return "(none)"
    required = set(schema.get("required") or ())
    parts = []
    for arg, prop in props.items():
        mark = "" if arg in required else "?"
        default = (
            f" = {json.dumps(prop['default'], default=str)}" if isinstance(prop, Mapping) and "default" in prop else ""
        )
        parts.append(f"{arg}{mark}: {_type_of(prop)}{default}")
    return ", ".join(parts)


def _render(tool: ToolExplanation) -> str:
    lines = [f"{tool.name}", f"  origin:     {tool.origin} (original name {tool.original_name!r})"]
    if tool.transforms:
        lines.append("  transforms:")
        lines.extend(f"    {i}. {step}" for i, step in enumerate(tool.transforms, 1))
    else:
        lines.append("  transforms: (none)")
    lines.append(f"  middleware: {' -> '.join(tool.middleware) if tool.middleware else '(none)'}")
    lines.append(f"  arguments before: {_arguments(tool.schema_before)}")
    lines.append(f"  arguments after:  {_arguments(tool.schema_after)}")
    return "\n".join(lines)
