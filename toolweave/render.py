"""Terminal output for the `toolweave` command: rich tables and trees on a terminal, plain text otherwise.

Example:
    >>> import io
    >>> console = Console(file=io.StringIO(), force_terminal=False)
    >>> print_tree(console, Node("server", [Node("tool")]))
    >>> console.file.getvalue()
    'server\\n  tool\\n'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table
from rich.tree import Tree

from toolweave.explain import REACHES

__all__ = ["Node", "explain_tree", "print_json", "print_listing", "print_tree", "print_upstreams", "printable"]


@dataclass
class Node:
    """A labelled tree node (rendered as a rich `Tree`, or indented plain text)."""

    label: str
    children: list[Node] = field(default_factory=list)
    code: str | None = None


_ACTED_ON = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters a terminal acts on instead of showing: C0/C1 controls (escape sequences that restyle,
hide or move text) and bidirectional overrides (which reorder it); newlines and tabs stay."""


def printable(data: Any) -> Any:
    """`data` (a string, or lists and mappings of them, keys included) with every character a
    terminal would act on written as its escape, so text from a tool or an upstream is shown as
    it is, never obeyed: a description cannot hide part of itself from the person reading it.

    Example:
        >>> print(printable("Adds.\\x1b[8m hidden"))
        Adds.\\x1b[8m hidden
    """
    if isinstance(data, str):
        return _ACTED_ON.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), data)
    if isinstance(data, dict):
        return {printable(key): printable(value) for key, value in data.items()}
    if isinstance(data, list):
        return [printable(item) for item in data]
    return data


def print_json(console: Console, data: Any) -> None:
    """`data` as indented JSON, highlighted on a terminal."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    if console.is_terminal:
        console.print(Syntax(text, "json", background_color="default"))
    else:
        console.out(text, highlight=False)


def _one_line(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _arguments(names: list[tuple[str, bool]]) -> str:
    """Argument names, an optional one in brackets: `code, [strict]`."""
    return ", ".join(name if required else f"[{name}]" for name, required in names)


def _args(tool: dict[str, Any]) -> str:
    schema = tool.get("inputSchema", {})
    required = set(schema.get("required", []))
    return _arguments([(name, name in required) for name in schema.get("properties", {})])


def _label(item: dict[str, Any], key: str) -> str:
    """A prompt with its arguments as a tool's are shown (`review(code, [strict])`), or a resource's URI.

    Example:
        >>> _label({"name": "review", "arguments": [{"name": "code", "required": True}, {"name": "strict"}]}, "name")
        'review(code, [strict])'
    """
    arguments = item.get("arguments")
    if not arguments:
        return str(item.get(key))
    return f"{item.get(key)}({_arguments([(arg['name'], bool(arg.get('required'))) for arg in arguments])})"


def _extras(listing: dict[str, list[dict[str, Any]]]) -> list[tuple[str, list[dict[str, Any]], str]]:
    """Prompts and resources always; resource templates only when there are some."""
    extras = [
        ("prompts", listing.get("prompts", []), "name"),
        ("resources", listing.get("resources", []), "uri"),
    ]
    templates = listing.get("resourceTemplates", [])
    if templates:
        extras.append(("resource templates", templates, "uriTemplate"))
    return extras


def _described(item: dict[str, Any], width: int = 80) -> str:
    """An item's description on one line, after what a caller needs to see it (if anything)."""
    text = _one_line(str(item.get("description") or ""), width)
    return f"[needs {item['access']}] {text}" if "access" in item else text


def print_listing(console: Console, listing: dict[str, list[dict[str, Any]]]) -> None:
    """Tools (name, arguments, description), prompts, resources and resource templates; then
    each upstream's state, when there are upstreams (see `print_upstreams`). Control characters
    are shown as escapes (`printable`)."""
    listing = printable(listing)
    tools = listing["tools"]
    if not console.is_terminal:
        console.out(f"tools ({len(tools)}):", highlight=False)
        for tool in tools:
            console.out(f"  {tool['name']}({_args(tool)})  {_described(tool)}", highlight=False)
        for kind, items, key in _extras(listing):
            console.out(f"{kind} ({len(items)}):", highlight=False)
            for item in items:
                description = _described(item)
                console.out(f"  {_label(item, key)}  {description}", highlight=False)
        print_upstreams(console, listing.get("upstreams", []))
        return
    table = Table(title=f"Tools ({len(tools)})", title_justify="left", show_lines=False)
    table.add_column("name", style="bold cyan", overflow="fold")  # a long name wraps, never cut, never the whole width
    table.add_column("arguments", style="green", overflow="fold")
    table.add_column("description")
    for tool in tools:
        table.add_row(escape(tool["name"]), escape(_args(tool)), escape(_described(tool, 100)))
    console.print(table)
    for kind, items, key in _extras(listing):
        title = kind[0].upper() + kind[1:]
        if not items:
            console.print(f"[dim]{title}: none[/dim]")
            continue
        extra = Table(title=f"{title} ({len(items)})", title_justify="left")
        extra.add_column(key, style="bold cyan", overflow="fold")
        extra.add_column("description")
        for item in items:
            description = _described(item, 100)
            extra.add_row(escape(_label(item, key)), escape(description))
        console.print(extra)
    print_upstreams(console, listing.get("upstreams", []))


def print_upstreams(console: Console, states: list[dict[str, Any]]) -> None:
    """Every upstream MCP server (up ones too): name, state, command or URL, and why it is not up;
    nothing when there are none.

    Example:
        >>> import io
        >>> console = Console(file=io.StringIO(), force_terminal=False)
        >>> print_upstreams(console, [
        ...     {"name": "wx", "target": "python wx.py", "state": "up"},
        ...     {"name": "gh", "target": "gh-mcp", "state": "down", "error": "FileNotFoundError: gh-mcp"},
        ... ])
        >>> print(console.file.getvalue(), end="")
        upstreams (2):
          wx  up  python wx.py
          gh  down  gh-mcp  FileNotFoundError: gh-mcp
    """
    if not states:
        return
    states = printable(states)
    if not console.is_terminal:
        console.out(f"upstreams ({len(states)}):", highlight=False)
        for state in states:
            why = f"  {state['error']}" if state.get("error") else ""
            console.out(f"  {state['name']}  {state['state']}  {state['target']}{why}", highlight=False)
        return
    table = Table(title=f"Upstreams ({len(states)})", title_justify="left")
    table.add_column("name", style="bold cyan", overflow="fold")
    table.add_column("state", no_wrap=True)
    table.add_column("command or URL")
    table.add_column("why not up")
    for state in states:
        color = "green" if state["state"] == "up" else "red"
        table.add_row(
            escape(state["name"]),
            f"[{color}]{escape(state['state'])}[/{color}]",
            escape(state["target"]),
            escape(state.get("error") or ""),
        )
    console.print(table)


def explain_tree(explained: list[dict[str, Any]], server_name: str) -> Node:
    """The explanation of each tool as a tree."""
    root = Node(f"server {server_name!r}: {len(explained)} tool(s)")
    for item in explained:
        origin = item["origin"]
        node = Node(item["name"])
        node.children.append(Node(f"origin: {origin['kind']} {origin['source']} ({origin['name']})"))
        node.children.append(Node(f"exposed by: {item['exposed_by']}"))
        steps = [Node(f"{index}. {step}") for index, step in enumerate(item["transforms"], 1)]
        node.children.append(Node("transforms (in order)" if steps else "transforms: none", steps))
        layers = [Node(f"{index}. {layer}") for index, layer in enumerate(item["middleware"], 1)]
        node.children.append(Node("middleware (outermost first)" if layers else "middleware: none", layers))
        if item.get("reaches"):
            node.children.append(Node(f"({REACHES})"))
        node.children.append(Node(f"access: {item.get('access') or 'every caller'}"))
        before, after = item["schema_before"], item["schema_after"]
        if before == after:
            node.children.append(Node("schema (unchanged)", code=json.dumps(after, indent=2)))
        else:
            node.children.append(Node("schema before", code=json.dumps(before, indent=2)))
            node.children.append(Node("schema after", code=json.dumps(after, indent=2)))
        root.children.append(node)
    return root


def _rich(node: Node, tree: Tree) -> None:
    for child in node.children:
        branch = tree.add(escape(printable(child.label)))
        if child.code is not None:
            branch.add(Syntax(child.code, "json", background_color="default", word_wrap=True))
        _rich(child, branch)


def _plain(node: Node, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    lines.append(f"{pad}{printable(node.label)}")
    if node.code is not None:
        lines.extend(f"{pad}  {line}" for line in node.code.splitlines())
    for child in node.children:
        _plain(child, depth + 1, lines)


def print_tree(console: Console, node: Node) -> None:
    """`node` as a rich tree on a terminal, indented text otherwise (labels `printable`)."""
    if console.is_terminal:
        tree = Tree(f"[bold]{escape(printable(node.label))}[/bold]")
        _rich(node, tree)
        console.print(tree, soft_wrap=False)  # wrap long lines at the terminal's width, never cut them
        return
    lines: list[str] = []
    _plain(node, 0, lines)
    console.out("\n".join(lines), highlight=False)
