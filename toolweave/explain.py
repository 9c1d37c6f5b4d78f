"""`explain(tool_or_server)`: where each exposed tool comes from and what was done to it.

One explanation model, used by `explain()` and by `toolweave explain`: for every exposed tool,
its origin (a function, a hand-written schema, a mount or a remote server, and the original
name), what exposes it (the catalog's origin), the transforms applied in order, the middleware
its calls go through — the server's chain and every mounted server's below it, outermost first —
and the input schema before and after. `explain` returns the data (`Explanation`, with
`to_dict()`) and prints it as text unless `show=False`.

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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from toolweave.core.errors import UnknownTool
from toolweave.core.tool import Tool
from toolweave.middleware.base import Middleware
from toolweave.middleware.selector import Selector
from toolweave.server.mount import Prefix

if TYPE_CHECKING:
    from toolweave.server.server import Server
    from toolweave.server.tools import ToolEntry


REACHES = "a middleware that wraps the tool a call reaches runs around that tool instead"
"""What `explain` says of a tool that calls another (`ToolExplanation.reaches`)."""


@dataclass(frozen=True, slots=True)
class ToolExplanation:
    """One exposed tool, explained.

    Attributes:
        name: The exposed name.
        origin: Where it comes from, e.g. `function app.search`, or for a server's tool what
            exposes it and where from: `mount 'gh' tool 'list' (...) <- remote gh (...)`.
        kind: The base tool's kind: `function`, `schema`, `remote`, ...
        source: The base tool's source (a module, an upstream).
        original_name: The base tool's name before any transform.
        exposed_by: How the server's catalog names where the tool came from.
        transforms: What was applied, oldest first (as each transform describes itself).
        middleware: The middleware its calls go through, outermost first, mounted servers' included.
        schema_before: The base tool's input schema.
        schema_after: The exposed input schema.
        access: What a caller needs to see and call it (`Authorize`); `None`: every caller.
        reaches: It calls another tool (`SearchTools`' `call_tool`): a middleware that wraps the
            tool a call reaches runs around that tool instead, so `middleware` is what runs
            when it reaches none.
    """

    name: str
    origin: str
    kind: str
    source: str
    original_name: str
    exposed_by: str
    transforms: tuple[str, ...]
    middleware: tuple[str, ...]
    schema_before: Mapping[str, Any]
    schema_after: Mapping[str, Any]
    access: str | None = None
    reaches: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The explanation as JSON-able data (what `toolweave explain --json` prints)."""
        return {
            "name": self.name,
            "exposed_by": self.exposed_by,
            "origin": {"kind": self.kind, "source": self.source, "name": self.original_name},
            "transforms": list(self.transforms),
            "middleware": list(self.middleware),
            "schema_before": dict(self.schema_before),
            "schema_after": dict(self.schema_after),
            "access": self.access,
            "reaches": self.reaches,
        }


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


def describe(step: Any) -> str:
    """How one transform or middleware shows: its `describe()` (a middleware: its name and
    selector), else its repr."""
    if isinstance(step, Middleware):
        selected = Selector.coerce(step.tools)
        return f"{step.name} (tools: {selected.describe()})" if selected is not None else step.name
    method = getattr(step, "describe", None)
    return str(method()) if callable(method) else repr(step)


def _silent(step: Any) -> bool:
    """A mount without a prefix (e.g. a config's per-source layer) changes nothing worth showing."""
    return isinstance(step, Prefix) and step.prefix is None


def explain_tool(
    tool: Tool, *, exposed_by: str | None = None, chains: Mapping[int, ToolEntry] | None = None
) -> ToolExplanation:
    """The explanation of one tool; `exposed_by` and `chains` (the entries of every server on its
    way, by tool id) as a server's catalogs know them."""
    lineage = tool.lineage()[::-1]  # base tool first
    root = lineage[0]
    base = root.origin
    kind = base.kind if base else "schema"
    source = base.source if base else "hand-written schema"
    if kind == "schema":
        described = source
    elif kind == "function":
        described = f"function {source}.{base.original_name if base else root.name}"
    else:
        described = f"{kind} {source}"
    steps = tuple(describe(step) for ancestor in lineage[1:] for step in ancestor.transforms if not _silent(step))
    entries = [entry for made in tool.lineage() if (entry := (chains or {}).get(id(made))) is not None]
    middleware = [describe(layer) for entry in entries for layer in entry.chain]
    return ToolExplanation(
        name=tool.name,
        origin=f"{exposed_by} <- {described}" if exposed_by else described,
        kind=kind,
        source=source,
        original_name=base.original_name if base else root.name,
        exposed_by=exposed_by or described,
        transforms=steps,
        middleware=tuple(middleware),
        schema_before=root.input_schema,
        schema_after=tool.input_schema,
        access=tool.access.describe() if tool.access is not None else None,
        reaches=any(entry.reaches for entry in entries),
    )


def explain_server(server: Server, name: str | None = None) -> Explanation:
    """Every exposed tool of `server` (only `name`, if given), with the chains of mounted servers.

    Raises:
        UnknownTool: the server exposes no tool called `name`.
    """
    chains: dict[int, ToolEntry] = {}
    _index(server, chains)
    catalog = server.catalog
    chosen = [catalog.get(name)] if name is not None else list(catalog.entries.values())
    return Explanation(tuple(explain_tool(entry.tool, exposed_by=entry.origin, chains=chains) for entry in chosen))


def _index(server: Server, chains: dict[int, ToolEntry]) -> None:
    """The catalog entries of `server` and of every server mounted below it, by tool id."""
    for entry in server.catalog.entries.values():
        chains[id(entry.tool)] = entry
    for mount in server.mounts:
        _index(mount.child, chains)


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
        try:
            report = explain_server(target, name)
        except UnknownTool:
            raise KeyError(f"server {target.name!r} exposes no tool named {name!r}") from None
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
    if tool.reaches:
        lines.append(f"              ({REACHES})")
    lines.append(f"  access:     {tool.access or 'every caller'}")
    lines.append(f"  arguments before: {_arguments(tool.schema_before)}")
    lines.append(f"  arguments after:  {_arguments(tool.schema_after)}")
    return "\n".join(lines)
